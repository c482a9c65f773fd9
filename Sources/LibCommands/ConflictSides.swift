import LibCLI
import LibJSON
import LibSync
import LibBase
import LibClient

/// The write that waits (a conflict or a rejection) and the writes of the
/// same path queued after it, made on top of it.
struct Write {
    let path: ResourcePath
    let item: OutboxItem
    let later: [OutboxItem]

    var key: String { path.description }
    var isConflict: Bool { item.status == .conflict }

    /// "1 write" or "3 writes (2 made on top of it)".
    var droppedPhrase: String {
        let total = Wording.writes(1 + later.count)
        return later.isEmpty ? total : "\(total) (\(later.count) made on top of it)"
    }
}

/// The three versions of a conflicting document: nil `mine` is a delete,
/// nil `theirs` a document the server no longer has, nil `base` a create.
/// Mine is the write's intent applied to its base, so the fields it differs
/// from the base in are only those this user changed.
struct Sides {
    let base: JSONObject?
    let mine: JSONObject?
    let theirs: JSONObject?

    init(_ item: OutboxItem) throws {
        base = try Self.object(item.baseBody, item.path, "the copy your change was based on")
        mine = item.intent.isDelete ? nil : item.intent.applied(to: base ?? JSONObject())
        theirs = try Self.object(item.theirsBody, item.path, "the server's version")
    }

    static func object(_ text: String?, _ path: String, _ what: String) throws -> JSONObject? {
        guard let text else { return nil }
        let parsed = Result { () throws(JSONSyntaxError) in try JSONParser.parse(text) }
        guard case .success(let value) = parsed, let object = value.objectValue else {
            throw CommandFailure("The stored copy of \(what) of \(path) is not a JSON object; use --theirs --whole or --discard.")
        }
        return object
    }

    /// The field-level merge when both sides still have the document.
    func fieldMerge(clashesTake side: FieldMerge.Side) -> FieldMerge? {
        guard let mine, let theirs else { return nil }
        return FieldMerge(base: base ?? JSONObject(), mine: mine, theirs: theirs, clashesTake: side)
    }

    /// What a three-way merge makes of them; a clash comes with the sentence that says why.
    var merged: DocumentMerge {
        DocumentMerge(base: base, mine: mine, theirs: theirs)
    }

    static func why(_ clash: DocumentMerge.Clash, _ key: String) -> String {
        switch clash {
        case .deletedHereChangedThere:
            return "\(key) was deleted here and changed on the server: use --mine, --theirs or --edit"
        case .changedHereDeletedThere:
            return "\(key) was changed here and deleted on the server: use --mine, --theirs or --edit"
        case .fields(let names):
            let verb = names.count == 1 ? "was" : "were"
            return "\(names.joinedAsList()) \(verb) changed on both sides: use --mine, --theirs or --edit"
        }
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
