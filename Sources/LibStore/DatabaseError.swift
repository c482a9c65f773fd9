import CSQLite

/// A failed SQLite call: the extended result code, SQLite's message and the
/// SQL that was running, so that a report names what went wrong and where.
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (for example SQLITE_BUSY_SNAPSHOT, 517).
    public let extendedCode: Int32
    public let message: String
    public let sql: String?
    /// The database file, when known.
    public let path: String?

    public init(extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// The primary result code (the low byte of the extended one).
    public var code: Int32 { extendedCode & 0xFF }

    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    public var isNotADatabase: Bool { code == SQLITE_NOTADB }
    public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
    public var isReadOnly: Bool { code == SQLITE_READONLY || code == SQLITE_CANTOPEN && extendedCode == SQLITE_CANTOPEN }
    public var isDiskFull: Bool { code == SQLITE_FULL }
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }

    /// A sentence for people: what happened to which file, without SQL.
    public var description: String {
        let file = path.map { " (\($0))" } ?? ""
        switch code {
        case SQLITE_NOTADB: return "The file is not a lib database\(file)"
        case SQLITE_CORRUPT: return "The database is corrupt\(file): \(message)"
        case SQLITE_FULL: return "The disk is full\(file): nothing was saved"
        case SQLITE_READONLY: return "The database is read-only\(file): \(message)"
        case SQLITE_CANTOPEN: return "Cannot open the database\(file): \(message)"
        case SQLITE_BUSY, SQLITE_LOCKED: return "The database is busy\(file): \(message)"
        default: return "Database error \(extendedCode)\(file): \(message)"
        }
    }

    /// The whole story for logs and tests, with the SQL.
    public var debugDescription: String {
        description + (sql.map { " [SQL: \($0)]" } ?? "")
    }
}
