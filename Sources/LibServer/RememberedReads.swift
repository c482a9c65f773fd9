import LibStore

/// Rows one connection read, by statement and bound values, valid for one
/// value of SQLite's `PRAGMA data_version` (which moves when another
/// connection commits) until the connection writes itself. Bounded whatever
/// the clients ask for: a result over `resultBytes` is not kept, and past
/// `limit` results or `totalBytes` all are forgotten.
struct RememberedReads {
    static let limit = 256
    static let resultBytes = 64 * 1024
    static let totalBytes = 1024 * 1024

    private struct Query: Hashable {
        let sql: String
        let values: [SQLValue]
    }

    private var results: [Query: [Row]] = [:]
    private var bytes = 0
    private var version: Int64?

    /// Forgets everything unless `version` is the one the results were read at.
    mutating func check(version current: Int64?) {
        guard current == nil || current != version else { return }
        forget()
        version = current
    }

    mutating func forget() {
        if !results.isEmpty { results.removeAll(keepingCapacity: true) }
        bytes = 0
        version = nil
    }

    func rows(_ sql: String, _ values: [SQLValue]) -> [Row]? {
        version == nil ? nil : results[Query(sql: sql, values: values)]
    }

    mutating func keep(_ rows: [Row], _ sql: String, _ values: [SQLValue]) {
        let size = rows.reduce(0) { total, row in total + row.values.reduce(16) { $0 + Self.size(of: $1) } }
        guard let kept = version, size <= Self.resultBytes else { return }
        if results.count >= Self.limit || bytes + size > Self.totalBytes {
            forget()
            version = kept
        }
        results[Query(sql: sql, values: values)] = rows
        bytes += size
    }

    private static func size(of value: SQLValue) -> Int {
        switch value {
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        case .null, .integer, .real: 8
        }
    }
}
