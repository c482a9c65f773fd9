#if canImport(Glibc)
import Glibc
#endif
import LibCLI
import LibBase

/// Where each account's files are: one directory per account (0700) under
/// the data directory, holding its SQLite store and its push lock; and the
/// outboxes set aside at logout, per identity.
public struct AccountPaths: Sendable {
    public let directories: LibDirectories

    public init(directories: LibDirectories) { self.directories = directories }

    public func accountDirectory(_ name: String) -> String {
        // Account names are `user@host[:port]` with a user name checked at
        // login and again when the index is read (UserName). Made safe here
        // too, where the path is made, so that no other name can ever reach
        // outside the accounts directory (a valid name is left as it is).
        directories.data + "/accounts/" + Self.oneComponent(name)
    }

    /// `name` as one path component: as it is when it already is one (not
    /// empty, no `/` or NUL, not `.` or `..`), else with `%`, `/`, NUL and
    /// the dots of `.` and `..` written as `%XX`.
    static func oneComponent(_ name: String) -> String {
        let isOne = !name.isEmpty && name != "." && name != ".."
            && !name.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == 0 })
        if isOne { return name }
        if name.isEmpty || name == "." || name == ".." { return String(repeating: "%2E", count: max(1, name.count)) }
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "/": out += "%2F"
            case "%": out += "%25"
            case "\0": out += "%00"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
    public func storePath(_ name: String) -> String { accountDirectory(name) + "/store.sqlite" }
    public func pushLockPath(_ name: String) -> String { accountDirectory(name) + "/push.lock" }
    public var setAsideDirectory: String { directories.data + "/set-aside" }

    /// Deletes an account's directory: its store (cache and outbox) and its lock.
    public func removeAccountFiles(_ name: String) {
        // The prompt file first: from then on no prompt shows the account.
        for file in ["prompt", "prompt.new", "prompt.lock", "store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "push.lock"] {
            unlink(accountDirectory(name) + "/" + file)
        }
        rmdir(accountDirectory(name))
    }
}
