import LibJSON
import LibSync

/// One write of the outbox as `lib status` and `lib diff` show it: its
/// path, kind and state, and what it changes field by field against the
/// version it was based on (and, for a conflict, what the server has).
struct WriteDescription {
    let item: OutboxItem
    let changes: [FieldChange]

    /// One field: its value in the version the write was based on, in the
    /// write, and (for a conflict) on the server. nil: the field is absent.
    struct FieldChange: Equatable {
        let field: String
        let old: JSONValue?
        let new: JSONValue?
        /// For a conflict only: the server's value (`.some(nil)`: absent there).
        let theirs: JSONValue??
    }

    var path: String { item.path }
    var kind: OutboxItem.Kind { item.kind }
    /// The fields the write itself changes (a delete changes none: it removes the document).
    var fields: [String] { changes.filter { $0.old != $0.new }.map(\.field) }

    /// "pending", "sent, no answer", "conflict" or "rejected".
    var state: String {
        switch item.status {
        case .pending: return item.mayBeOnServer ? "sent, no answer" : "pending"
        case .conflict: return "conflict"
        case .rejected: return "rejected"
        }
    }

    init(_ item: OutboxItem) {
        self.item = item
        let base = item.base ?? JSONObject()
        let mine = item.intent.applied(to: base) ?? JSONObject()
        var fields = item.intent.isDelete ? [] : FieldMerge.changedFields(from: base, to: mine)
        var theirs: JSONObject?
        if item.status == .conflict {
            theirs = item.theirs ?? JSONObject()
            for field in FieldMerge.changedFields(from: base, to: theirs ?? JSONObject()) where !fields.contains(field) {
                fields.append(field)
            }
        }
        changes = fields.map { field in
            FieldChange(field: field, old: base[field], new: item.intent.isDelete ? base[field] : mine[field],
                        theirs: theirs.map { $0[field] })
        }
    }
}
