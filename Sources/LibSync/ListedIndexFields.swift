import LibStore

/// The index fields (`BookIndexFields`) of the books a listing stored
/// unindexed in this process, page by page: when its `IndexLag` steps, and
/// this holds exactly the lag's range and books, the range is indexed from
/// these instead of from the stored JSON (a first pull of 100,000 books:
/// the storing thread's reading of the fields was about a fifth of its
/// work). Anything else, a page without fields, a lag a killed pull left,
/// another process's commit to the store meanwhile (`lib get` caching a
/// newer copy in the range), makes the lag indexed from the stored JSON,
/// as before. Kept in memory only: a pull killed at any point leaves the
/// lag in `meta`, which the next one indexes from the store.
final class ListedIndexFields {
    private(set) var low: String?
    private(set) var high: String?
    private(set) var books = 0
    private(set) var rows: [(path: String, fields: BookIndexFields)] = []
    /// False once a page came without fields or another connection committed.
    private var usable = true
    /// `PRAGMA data_version` after this connection's last page.
    private var version: Int64?

    /// Before a page's transaction: another connection's commit since the last page makes these unusable.
    func beforePage(in db: Database) throws {
        let now = try db.scalar("PRAGMA data_version")?.integer
        if let version, now != version { usable = false }
    }

    /// After a page's transaction committed.
    func afterPage(in db: Database) throws {
        version = try db.scalar("PRAGMA data_version")?.integer
    }

    /// A page stored unindexed (as `IndexLag.stored` widens the lag), with its books' fields or nil.
    func stored(_ paths: [String], _ fields: [BookIndexFields]?, after pageLow: String, through pageHigh: String) {
        low = min(low ?? pageLow, pageLow)
        high = max(high ?? pageHigh, pageHigh)
        books += paths.count
        guard usable, let fields, fields.count == paths.count else {
            usable = false
            rows = []
            return
        }
        rows.append(contentsOf: zip(paths, fields).map { ($0, $1) })
    }

    /// Whether these are every book of `lag`, read in this process.
    func cover(_ lag: IndexLag) -> Bool {
        usable && low == lag.low && high == lag.high && books == lag.books && rows.count == books
    }

    /// The lag was indexed (or dropped): start again with the next page.
    func reset() {
        low = nil
        high = nil
        books = 0
        rows = []
        usable = true
    }
}
