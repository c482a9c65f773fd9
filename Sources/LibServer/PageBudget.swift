import LibStore

/// How many of a page's candidate rows fit its byte budget: rows in order,
/// each with its document's size in column 1, at most `limit` of them and
/// about `maxBytes` of documents, always at least one (the listing's pages
/// and the change feed's alike).
enum PageBudget {
    static func rowsThatFit(_ sizes: [Row], limit: Int, maxBytes: Int) -> Int {
        var count = 0, bytes = 0
        for row in sizes.prefix(limit) {
            let size = Int(row[1].integer ?? 0)
            if count > 0 && bytes + size > maxBytes { break }
            count += 1
            bytes += size
        }
        return count
    }

    /// The size in bytes of a text column's value (NULL for NULL). SQLite
    /// 3.40 has no octet_length; its length() of a blob counts bytes (of
    /// text, characters).
    static func byteLength(_ column: String, _ dialect: SQLDialect) -> String {
        dialect == .postgresql ? "octet_length(\(column))" : "length(CAST(\(column) AS BLOB))"
    }
}
