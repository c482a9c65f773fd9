import LibJSON

/// One write as the server is asked to make it, under either protocol: its
/// idempotency key, path, intent and precondition. Protocol v1 sends it as a
/// PUT of the whole document or a DELETE (`LibraryWriter`), protocol v2 as
/// one item of a batch (`send(batch:)`).
public struct WriteItem: Sendable {
    public enum Intent: Sendable {
        /// Applied only when no live book has the id.
        case create(JSONObject)
        /// The fields set and removed, and the values the write saw of them
        /// (`seen`; a field missing there was missing in the version it saw).
        case update(set: JSONObject, remove: [String], seen: JSONObject)
        case delete
    }

    public var key: String
    /// `books/b-7`.
    public var path: String
    public var intent: Intent
    /// The version it was made against (an update and a delete need one).
    public var ifMatch: String?
    /// An update that asks for the whole-version rule instead of its fields'.
    public var strict: Bool

    public init(key: String, path: String, intent: Intent, ifMatch: String?, strict: Bool = false) {
        self.key = key
        self.path = path
        self.intent = intent
        self.ifMatch = ifMatch
        self.strict = strict
    }

    /// The item as a v2 batch carries it; the same write always gives the
    /// same bytes, which the server's idempotency record compares.
    public var json: JSONValue {
        var object = JSONObject([("key", .string(key)), ("path", .string(path))])
        switch intent {
        case .create(let document):
            object["op"] = "create"
            object["document"] = .object(document)
        case .update(let set, let remove, let seen):
            object["op"] = "update"
            if let ifMatch { object["if_match"] = .string(ifMatch) }
            if !set.isEmpty { object["set"] = .object(set) }
            if !remove.isEmpty { object["remove"] = .array(remove.map { .string($0) }) }
            if !seen.isEmpty { object["seen"] = .object(seen) }
            if strict { object["strict"] = true }
        case .delete:
            object["op"] = "delete"
            if let ifMatch { object["if_match"] = .string(ifMatch) }
        }
        return .object(object)
    }

    var isDelete: Bool { if case .delete = intent { return true } else { return false } }
    var isCreate: Bool { if case .create = intent { return true } else { return false } }
    var id: String { String(path.split(separator: "/").last ?? "") }
}
