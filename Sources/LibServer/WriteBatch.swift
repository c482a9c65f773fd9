import LibHTTP
import LibJSON

/// What a server takes in one `POST /v2/writes`, announced at
/// `GET /v2/capabilities`; a batch over either is a 413 that names it.
public struct WriteBatchLimits: Sendable, Equatable {
    public var maxItems: Int
    /// The request body's size: the HTTP server's body limit.
    public var maxBytes: Int

    public init(maxItems: Int = 1_000, maxBytes: Int = 1024 * 1024) {
        self.maxItems = maxItems
        self.maxBytes = maxBytes
    }
}

/// The body of `POST /v2/writes` read into items, or a 400 that names the
/// item and what is wrong with it. Only the shape is checked here; a book
/// that breaks the schema is that item's 422, not the batch's 400.
enum WriteBatch {
    static func items(in body: JSONObject) throws -> [WriteItem] {
        for key in body.keys where key != "writes" {
            throw ProblemError(.badRequest("Unknown member '\(key)': a batch is {\"writes\": [...]}"))
        }
        guard let writes = body["writes"] else {
            throw ProblemError(.badRequest("The batch has no 'writes': send {\"writes\": [...]}"))
        }
        guard let list = writes.arrayValue else {
            throw ProblemError(.badRequest("'writes' must be an array, not \(writes.typeName)"))
        }
        var keys: Set<String> = []
        return try list.enumerated().map { index, value in
            let item = try self.item(value, at: "writes[\(index)]")
            guard keys.insert(item.key).inserted else {
                throw ProblemError(.badRequest("writes[\(index)] reuses the key of an earlier item: each write needs its own key"))
            }
            return item
        }
    }

    private static let members: Set<String> = ["key", "path", "op", "document", "set", "remove", "seen", "if_match", "strict"]

    private static func item(_ value: JSONValue, at place: String) throws -> WriteItem {
        func fail(_ detail: String) -> ProblemError { ProblemError(.badRequest("\(place) \(detail)")) }
        guard let object = value.objectValue else { throw fail("must be an object, not \(value.typeName)") }
        if let unknown = object.keys.first(where: { !members.contains($0) }) {
            throw fail("has an unknown member '\(unknown)'")
        }
        guard let key = object["key"]?.stringValue else { throw fail("needs a 'key' (its idempotency key, a string)") }
        guard IdempotencyLedger.isValidKey(key) else { throw fail("has a key that is not 1 to 255 visible ASCII characters") }
        guard let path = object["path"]?.stringValue else { throw fail("needs a 'path' such as \"books/b-7\"") }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "books", BookValidation.isValidID(String(parts[1])) else {
            throw fail("has a path that is not books/ID (an id of 1–128 letters, digits, '-', '.', '_' or '~')")
        }
        var ifMatch: EntityTag?
        if let tag = object["if_match"] {
            guard let text = tag.stringValue, let parsed = EntityTag(parsing: text), !parsed.isWeak else {
                throw fail("has an 'if_match' that is not a strong entity tag such as \"\\\"3-9f2c1a07\\\"\"")
            }
            ifMatch = parsed
        }
        var strict = false
        if let flag = object["strict"] {
            guard let value = flag.boolValue else { throw fail("has a 'strict' that is not true or false") }
            strict = value
        }
        let change: WriteItem.Change
        switch object["op"]?.stringValue {
        case "create":
            guard let document = object["document"]?.objectValue else { throw fail("creates a book: it needs a 'document' object") }
            try only(["key", "path", "op", "document"], in: object, fail: fail)
            change = .put(document, Preconditions(ifNoneMatch: .any))
        case "update":
            guard let ifMatch else { throw fail("updates a book: it needs 'if_match', the version it was made against") }
            let set = try object["set"].map { value throws -> JSONObject in
                guard let fields = value.objectValue else { throw fail("has a 'set' that is not an object") }
                return fields
            } ?? JSONObject()
            let remove = try object["remove"].map { value throws -> [String] in
                guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count else {
                    throw fail("has a 'remove' that is not an array of field names")
                }
                return names
            } ?? []
            let seen = try object["seen"].map { value throws -> JSONObject in
                guard let fields = value.objectValue else { throw fail("has a 'seen' that is not an object") }
                return fields
            } ?? JSONObject()
            guard !set.isEmpty || !remove.isEmpty else { throw fail("updates nothing: give 'set' or 'remove'") }
            if let outside = seen.keys.first(where: { set[$0] == nil && !remove.contains($0) }) {
                throw fail("says in 'seen' what it saw of '\(outside)', a field it does not change")
            }
            if set["id"] != nil || remove.contains("id") { throw fail("changes 'id': a book's id is its path") }
            try only(["key", "path", "op", "set", "remove", "seen", "if_match", "strict"], in: object, fail: fail)
            change = .update(FieldUpdate(set: set, remove: remove, seen: seen, madeAgainst: ifMatch, strict: strict))
        case "delete":
            guard let ifMatch else { throw fail("deletes a book: it needs 'if_match', the version it was made against") }
            try only(["key", "path", "op", "if_match"], in: object, fail: fail)
            change = .delete(Preconditions(ifMatch: .tags([ifMatch])))
        case let other?:
            throw fail("has an unknown op '\(other)' (create, update or delete)")
        case nil:
            throw fail("needs an 'op': create, update or delete")
        }
        let hash = IdempotencyLedger.requestHash(method: "v2", path: path, body: value.utf8Bytes)
        return WriteItem(key: key, id: String(parts[1]), change: change, requestHash: hash)
    }

    private static func only(_ allowed: Set<String>, in object: JSONObject, fail: (String) -> ProblemError) throws {
        if let extra = object.keys.first(where: { !allowed.contains($0) }) {
            throw fail("has '\(extra)', which its op does not take")
        }
    }
}
