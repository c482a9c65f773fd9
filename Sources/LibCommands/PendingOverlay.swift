import LibJSON
import LibSync

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

/// A document as `lib get` shows it: the server's copy (fresh or cached)
/// with the newest unsent write applied, and what is unsent.
struct DocumentView {
    let path: String
    /// The document to show; nil when a pending write deletes it.
    let document: JSONValue?
    /// The server's copy, before the unsent writes.
    let serverCopy: JSONValue?
    let pending: PendingWrites?

    /// Applies the newest of `items` (all of one path, oldest first) to the
    /// server's copy: its body for a PUT, nothing for a DELETE.
    init(path: String, serverCopy: JSONValue?, outboxItems items: [OutboxItem]) {
        self.path = path
        self.serverCopy = serverCopy
        guard let newest = items.last else {
            document = serverCopy
            pending = nil
            return
        }
        pending = PendingWrites(count: items.count, deletes: newest.method == .delete,
                                needResolving: items.filter { $0.status != .pending }.count)
        switch newest.method {
        case .delete: document = nil
        case .put: document = newest.body.flatMap { try? JSONParser.parse($0) } ?? serverCopy
        }
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
