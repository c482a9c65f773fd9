import LibBase
import LibStore

/// The books a pull saw deleted on the server (the feed said so, or a
/// listing no longer had them), and when: an offline read of one says
/// "deleted on the server", not "not cached".
///
/// Bounded: the newest `limit` deletions per account (a trigger drops the
/// ones an insert pushes past the bound); a pull pays one insert per
/// deleted book.
public struct SeenDeletions {
    let db: Database

    public static let limit = 10_000

    /// Migration `010-deletions-seen`.
    static let migration = """
        CREATE TABLE deletions_seen (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            path TEXT NOT NULL UNIQUE,
            seen_at REAL NOT NULL                  -- when the pull saw it gone (unix seconds)
        );
        CREATE TRIGGER deletions_seen_bound AFTER INSERT ON deletions_seen BEGIN
            DELETE FROM deletions_seen WHERE id <= NEW.id - \(limit);
        END;
        """

    /// Records paths a pull found gone, in the caller's transaction.
    func record(_ paths: [String], at date: UnixSeconds) throws {
        for path in paths {
            try db.run(cached: "INSERT OR REPLACE INTO deletions_seen (path, seen_at) VALUES (?1, ?2)", [.text(path), .real(date)])
        }
    }

    /// The deleted paths kept (the newest `limit`) under `prefix`, in path order.
    public func paths(under prefix: String) throws -> [String] {
        try db.query("SELECT path FROM deletions_seen WHERE path >= ?1 AND path < ?2 ORDER BY path",
                     [.text(prefix), .text(prefix + "\u{10FFFF}")]).compactMap { $0[0].text }
    }

    /// When a pull saw `path` deleted on the server; nil when none did.
    public func seenAt(_ path: String) throws -> UnixSeconds? {
        try db.scalar(cached: "SELECT seen_at FROM deletions_seen WHERE path = ?1", [.text(path)])?.real
    }
}
