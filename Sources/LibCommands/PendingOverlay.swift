import LibJSON
import LibSync
import LibBase

/// The writes of one path still in the outbox (pending, in conflict or
/// rejected): none of them has reached the server, so what they change is
/// shown as "not yet pushed", never as done.
struct PendingWrites: Equatable {
    /// Outbox items for the path.
    var count: Int
    /// Whether the newest of them deletes the document.
    var deletes: Bool
    /// Items that wait for `lib resolve` (conflicts and rejected writes).
    var needResolving: Int
}

/// A document as `lib get` shows it: its local version (the server's copy,
/// fresh or cached, with the unsent writes' intents applied), and what is unsent.
struct DocumentView {
    let path: String
    /// The document to show; nil when a pending write deletes it.
    let document: JSONValue?
    /// The server's copy, before the unsent writes.
    let serverCopy: JSONValue?
    let pending: PendingWrites?

    init(path: String, serverCopy: JSONValue?, outboxItems items: [OutboxItem]) {
        let local = LocalVersion(path: path, cached: serverCopy, writes: items)
        self.path = path
        self.serverCopy = serverCopy
        document = local.shown
        pending = items.isEmpty ? nil
            : PendingWrites(count: items.count, deletes: local.deletes, needResolving: local.needResolving)
    }
}

extension PendingWrites {
    /// "1 change saved on this device, not yet pushed", for standard error.
    static func notice(_ all: [PendingWrites]) -> String? {
        let count = all.reduce(0) { $0 + $1.count }
        guard count > 0 else { return nil }
        var text = "\(Wording.count(count, "change")) saved on this device, not yet pushed"
        let resolving = all.reduce(0) { $0 + $1.needResolving }
        if resolving > 0 { text += " (\(resolving) to settle with `lib resolve`)" }
        return text + "\n"
    }
}
