#if canImport(Glibc)
import Glibc
#endif

/// Whether the file system holding a path has no room left. SQLite reports
/// a full disk as SQLITE_FULL only when the database or its journal cannot
/// grow; when it is the shared-memory index (`-shm`) that cannot be made,
/// the error is a generic I/O error, so errors are also checked against the
/// file system's free space before they are explained.
enum DiskSpace {
    /// True when fewer than 64 KiB are free for this user where `path` is
    /// (or, for a path that does not exist, where its directory is).
    static func isExhausted(near path: String) -> Bool {
        var candidate = path
        while !candidate.isEmpty {
            var info = statvfs()
            if statvfs(candidate, &info) == 0 {
                return UInt64(info.f_bavail) * UInt64(info.f_frsize) < 64 * 1024
            }
            guard let slash = candidate.lastIndex(of: "/") else { return false }
            candidate = String(candidate[..<slash])
        }
        return false
    }
}
