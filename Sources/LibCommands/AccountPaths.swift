#if canImport(Glibc)
import Glibc
#endif
import LibCLI

/// Where each account's files are: one directory per account (0700) under
/// the data directory, holding its SQLite store and its push lock; and the
/// outboxes set aside at logout, per identity.
public struct AccountPaths: Sendable {
    public let directories: LibDirectories

    public init(directories: LibDirectories) { self.directories = directories }

    public func accountDirectory(_ name: String) -> String { directories.data + "/accounts/" + name }
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
