import CSQLite

/// A prepared statement. Owns its handle and finalizes it when released;
/// used by one thread at a time, like the `Database` that made it.
public final class Statement {
    private let handle: OpaquePointer
    private unowned let database: Database
    public let sql: String
    /// Running for a caller of `Database.withCachedStatement`: a nested caller gets its own.
    var isLent = false
    /// The column names, read once (lib's statements name their columns: no `*` that a schema change could widen).
    public private(set) lazy var columnNames: [String] = (0..<columnCount).map(columnName)

    init(database: Database, sql: String) throws(DatabaseError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, 0, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw database.error(rc, sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears earlier bindings and binds these, in order (?1, ?2, ...).
    public func bind(_ values: [SQLValue]) throws(DatabaseError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(let v):
                // With an explicit length, so that text holding NUL survives.
                var text = v
                rc = text.withUTF8 { utf8 in
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        // A nil pointer would bind NULL, so "" gets a real one.
                        guard let base = chars.baseAddress else {
                            return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                        }
                        return sqlite3_bind_text(handle, index, base, Int32(chars.count), csqlite_transient())
                    }
                }
            case .blob(let v):
                rc = v.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
        }
    }

    /// Advances to the next row; false when done.
    public func step() throws(DatabaseError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    public func reset() { sqlite3_reset(handle) }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? ""
    }

    public func value(at index: Int) -> SQLValue {
        let i = Int32(index)
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT: return .text(text(at: index) ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, i))
            guard count > 0, let base = sqlite3_column_blob(handle, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default: return .null
        }
    }

    public func text(at index: Int) -> String? {
        let i = Int32(index)
        guard let pointer = sqlite3_column_text(handle, i) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, i))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public func integer(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }

    /// Steps through every row, reading each with `row`.
    public func rows<T>(_ row: (Statement) throws -> T) throws -> [T] {
        var result: [T] = []
        while try step() { result.append(try row(self)) }
        return result
    }
}
