import LibJSON
import LibSync

/// Writes as the commands make them, for the outbox's tests.
extension Outbox.NewWrite {
    /// A change of `fields` to `base` (a document as the user saw it), made against `etag`.
    static func change(_ path: String, _ fields: [(String, JSONValue)], base: JSONObject = ["id": "x", "title": "base"],
                       etag: String? = "\"1-a\"") -> Outbox.NewWrite {
        var new = base
        for (name, value) in fields { new[name] = value }
        return .init(path: path, intent: .change(FieldChanges(from: base, to: new)),
                     baseBody: JSONValue.object(base).serialized(), baseETag: etag)
    }

    static func create(_ path: String, _ document: JSONObject) -> Outbox.NewWrite {
        .init(path: path, intent: .create(document), baseBody: nil, baseETag: nil)
    }

    static func delete(_ path: String, base: JSONObject = ["id": "x", "title": "base"], etag: String? = "\"1-a\"") -> Outbox.NewWrite {
        .init(path: path, intent: .delete, baseBody: JSONValue.object(base).serialized(), baseETag: etag)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}

extension OutboxItem {
    /// What a PUT of it sends, as text.
    var sentText: String? { documentToSend.map { JSONValue.object($0).serialized() } }
}

extension Outbox {
    /// Marks a write as sent without an answer, as a push whose request reached the server does.
    func markSent(seq: Int64) throws { try recordFailure(seq: seq, error: "no answer", sent: true) }
}
