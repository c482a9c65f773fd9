import LibJSON

/// How an intent is kept in an outbox row: `method` and `create_only` say
/// which kind it is; a create keeps its document in `body`, a change its
/// fields in `changes` (`FieldChanges.json`).
struct StoredIntent {
    var method: String
    var createOnly: Bool
    var body: String?
    var changes: String?

    init(_ intent: WriteIntent) {
        switch intent {
        case .create(let document):
            self.init(method: "PUT", createOnly: true, body: JSONValue.object(document).serialized(), changes: nil)
        case .change(let changes):
            self.init(method: "PUT", createOnly: false, body: nil, changes: changes.json.serialized())
        case .delete:
            self.init(method: "DELETE", createOnly: false, body: nil, changes: nil)
        }
    }

    init(method: String?, createOnly: Bool, body: String?, changes: String?) {
        self.method = method ?? ""
        self.createOnly = createOnly
        self.body = body
        self.changes = changes
    }

    /// The intent the row holds; nil when it cannot be read.
    var intent: WriteIntent? {
        switch (method, createOnly) {
        case ("DELETE", _):
            return .delete
        case ("PUT", true):
            return body.flatMap { try? JSONParser.parse($0) }?.objectValue.map { .create($0) }
        case ("PUT", false):
            return changes.flatMap { FieldChanges(json: $0) }.map { .change($0) }
        default:
            return nil
        }
    }
}
