#if canImport(Glibc)
import Glibc
#endif
import LibStore
import LibBase

/// Outboxes set aside at logout, kept per identity (server origin and user
/// id) until the same identity signs in again. Each is an account store file
/// holding only outbox rows, named by when it was set aside, so that several
/// logouts restore in their original order.
extension String {
    /// `identityKey`'s escapes (`%2F`) undone; nil when one is not two hex digits.
    fileprivate var removingPercentEscapes: String? {
        var bytes: [UInt8] = []
        var rest = Substring(self).utf8[...]
        while let byte = rest.first {
            rest = rest.dropFirst()
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            rest = rest.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

public struct SetAsideOutboxes {
    /// `<data>/set-aside`.
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// A directory name for an identity: readable, and safe whatever the server's user id holds.
    public static func identityKey(origin: String, userID: String) -> String {
        func safe(_ s: String) -> String {
            var out = ""
            for byte in s.utf8 {
                let c = Character(UnicodeScalar(byte))
                if c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "-" || c == "_") { out.append(c) }
                else { out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2) }
            }
            return out
        }
        return safe(userID) + "@" + safe(origin)
    }

    func identityDirectory(_ key: String) -> String { directory + "/" + key }

    /// Every identity with writes set aside: its key, and the server origin
    /// and user id it was made from.
    public func identities() -> [(key: String, origin: String, userID: String)] {
        Self.directoryEntries(directory).sorted().compactMap { key in
            guard let at = key.firstIndex(of: "@"), !files(for: key).isEmpty,
                  let userID = String(key[..<at]).removingPercentEscapes,
                  let origin = String(key[key.index(after: at)...]).removingPercentEscapes else { return nil }
            return (key, origin, userID)
        }
    }

    /// The set-aside files of an identity, oldest first.
    public func files(for key: String) -> [String] {
        let dir = identityDirectory(key)
        return Self.directoryEntries(dir).filter { $0.hasSuffix(".sqlite") }.sorted().map { dir + "/" + $0 }
    }

    /// How many writes are set aside for the identity.
    public func count(for key: String) -> Int {
        files(for: key).reduce(0) { total, file in
            total + ((try? AccountStore(readingFrom: file).outbox.counts()).map { $0.pending + $0.conflicts + $0.rejected } ?? 0)
        }
    }

    /// Moves every outbox row of `store` into a new set-aside file for the
    /// identity, in one transaction: the rows are either in the store or set
    /// aside, never both, never neither. Returns how many were moved.
    @discardableResult
    public func setAside(from store: AccountStore, identityKey key: String, now: UnixSeconds) throws -> Int {
        let count = try store.database.scalar("SELECT count(*) FROM outbox")?.integer ?? 0
        if count == 0 { return 0 }
        try makePrivateDirectory(identityDirectory(key))
        // Microseconds, zero-padded: file names sort in the order of the logouts.
        let stamp = String(Int64(now * 1_000_000)).leftPadded(20)
        let file = identityDirectory(key) + "/\(stamp)-\(getpid()).sqlite"
        _ = try AccountStore(path: file)  // creates the schema, 0600
        let db = store.database
        try db.execute("ATTACH DATABASE '\(sqlQuoted(file))' AS aside")
        defer { try? db.execute("DETACH DATABASE aside") }
        try db.write { db in
            try db.execute("INSERT INTO aside.outbox (\(Self.columns)) SELECT \(Self.columns) FROM main.outbox ORDER BY seq")
            try db.execute("DELETE FROM main.outbox")
        }
        return Int(count)
    }

    /// Appends the identity's set-aside writes to `store`'s outbox, oldest
    /// first, keeping their idempotency keys (a write that reached the server
    /// before logout is answered from its record, not applied again), then
    /// removes the set-aside files. Returns how many were restored.
    @discardableResult
    public func restore(into store: AccountStore, identityKey key: String) throws -> Int {
        var restored = 0
        let db = store.database
        for file in files(for: key) {
            // A file set aside by an earlier release is brought to this
            // release's outbox format first (writes as intents).
            _ = try AccountStore(path: file)
            try db.execute("ATTACH DATABASE '\(sqlQuoted(file))' AS aside")
            do {
                restored += try db.write { db -> Int in
                    let n = Int(try db.scalar("SELECT count(*) FROM aside.outbox")?.integer ?? 0)
                    let columns = Self.columnList.filter { $0 != "seq" }.joined(separator: ", ")
                    try db.execute("INSERT INTO main.outbox (\(columns)) SELECT \(columns) FROM aside.outbox ORDER BY seq")
                    return n
                }
                try db.execute("DETACH DATABASE aside")
            } catch {
                try? db.execute("DETACH DATABASE aside")
                throw error
            }
            for suffix in ["", "-wal", "-shm"] { unlink(file + suffix) }
        }
        rmdir(identityDirectory(key))
        return restored
    }

    /// Deletes the identity's set-aside writes (`--no-restore` never does this; only an explicit discard).
    public func discard(identityKey key: String) {
        for file in files(for: key) { for suffix in ["", "-wal", "-shm"] { unlink(file + suffix) } }
        rmdir(identityDirectory(key))
    }

    static let columnList = [
        "seq", "path", "method", "create_only", "body", "changes", "base_body", "base_etag", "if_match", "idempotency_key",
        "status", "attempts", "claimed", "last_error", "theirs_body", "theirs_etag", "problem", "created_at", "updated_at",
    ]
    static let columns = columnList.joined(separator: ", ")

    /// A file name as an SQL string literal's contents: quotes doubled.
    private func sqlQuoted(_ text: String) -> String {
        text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''")
    }

    /// Makes the set-aside directory and the identity's, each 0700.
    private func makePrivateDirectory(_ path: String) throws {
        for dir in [directory, path] {
            if mkdir(dir, 0o700) != 0 && errno != EEXIST {
                throw SetAsideError(path: dir, reason: String(cString: strerror(errno)))
            }
            chmod(dir, 0o700)
        }
    }

    /// The names in a directory; none when it does not exist.
    static func directoryEntries(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

struct SetAsideError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "Cannot create \(path): \(reason)" }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
