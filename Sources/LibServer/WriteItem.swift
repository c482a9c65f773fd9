import LibHTTP
import LibJSON

/// One write of a book as the write pipeline (`WritePipeline`) takes it,
/// whichever protocol it came by: a v1 `PUT` or `DELETE` is a batch of one
/// of these, each item of a `POST /v2/writes` one more.
struct WriteItem {
    enum Change {
        /// The whole document, under preconditions evaluated as RFC 9110
        /// says: a v1 `PUT`, or a v2 `create` (`If-None-Match: *`).
        case put(JSONObject, Preconditions)
        /// Some fields, under the field precondition: a v2 `update`.
        case update(FieldUpdate)
        /// A v1 `DELETE`, or a v2 `delete` (`If-Match` with the version it saw).
        case delete(Preconditions)
    }

    /// Its idempotency key.
    let key: String
    let id: String
    let change: Change
    /// What makes a retry "the same write": the request (v1) or the item (v2) as sent.
    let requestHash: String
}

/// A v2 `update`: the fields it sets and removes, the values it saw of them
/// (`seen`; a field missing there was missing in the version it saw), and
/// that version.
struct FieldUpdate {
    let set: JSONObject
    let remove: [String]
    let seen: JSONObject
    let madeAgainst: EntityTag
    /// v1's rule instead: the whole version, not its fields.
    let strict: Bool

    var changedFields: [String] { self.set.keys + remove.filter { self.set[$0] == nil } }
}
