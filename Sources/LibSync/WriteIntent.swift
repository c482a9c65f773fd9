import LibJSON

/// What the user did to one document: the write as an intent, not a
/// snapshot. What goes on the wire is the intent applied to the version the
/// write is sent against, so every field the user did not touch is the
/// server's.
public enum WriteIntent: Sendable, Equatable {
    /// A new document (sent with `If-None-Match: *`).
    case create(JSONObject)
    /// Fields set and removed.
    case change(FieldChanges)
    case delete

    /// The document after the intent, applied to `document` (nil: it does not exist).
    public func applied(to document: JSONObject?) -> JSONObject? {
        switch self {
        case .create(let new): return new
        case .change(let changes): return document.map { changes.applied(to: $0) }
        case .delete: return nil
        }
    }

    /// The fields the intent names: those it sets or removes, every field of
    /// a created document, none for a delete.
    public var fieldNames: [String] {
        switch self {
        case .create(let document): return document.keys
        case .change(let changes): return changes.names
        case .delete: return []
        }
    }

    public var isCreate: Bool { if case .create = self { return true } else { return false } }
    public var isDelete: Bool { if case .delete = self { return true } else { return false } }

    /// This intent, then `later` on top, as one write (two edits that were
    /// never sent): nil when nothing is left to do (a create then a delete).
    /// `base` is the version this intent was made against.
    public func followed(by later: WriteIntent, base: JSONObject?) -> WriteIntent? {
        switch (self, later) {
        case (.create, .delete): return nil
        case (.create(let document), .change(let changes)): return .create(changes.applied(to: document))
        case (.change(let mine), .change(let next)): return .change(mine.followed(by: next))
        case (.delete, .create(let document)):
            // Deleted, then made again: the new document replaces the base whole.
            guard let base else { return .create(document) }
            return .change(FieldChanges(from: base, to: document))
        default: return later
        }
    }

    /// Whether the intent, made against `base`, clashes with `target`, the
    /// version it would now be sent against: a field it changes that was
    /// changed there to another value, a change or delete of a document
    /// that is gone, a delete of a document changed since, a create of one
    /// that exists. No clash: applying it to `target` keeps every other
    /// change and reverts nothing.
    public func clashes(base: JSONObject?, target: JSONObject?) -> Bool {
        switch self {
        case .create:
            return target != nil
        case .delete:
            return target == nil || target != base
        case .change(let changes):
            guard let target else { return true }
            return changes.fields.contains { name, value in
                target[name] != base?[name] && target[name] != value
            }
        }
    }
}
