import CPostgres
#if canImport(Glibc)
import Glibc
#endif
import LibStore

/// A failed PostgreSQL call: libpq's message and, for a statement, its SQLSTATE.
struct PostgresError: Error, CustomStringConvertible {
    let message: String
    var sqlState: String?
    /// The connection to the server is gone (PostgreSQL stopped or
    /// restarted): the next statement reconnects first.
    var connectionLost = false
    /// read_only_sql_transaction: a write reached a standby.
    static let readOnly = "25006"

    var description: String {
        "PostgreSQL: " + message.trimmingTrailingNewlines + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
    }
}

/// One libpq connection. Values go as text parameters and come back as
/// text, turned into integers or reals by their column's type.
final class PostgresConnection: SQLConnection {
    private let handle: OpaquePointer

    /// `?N` placeholders rewritten once per statement text.
    private var translated: [String: String] = [:]
    private var inTransaction = false
    /// The server turned out read-only (a standby, or a primary demoted
    /// meanwhile): made again before the next transaction, so that a
    /// multi-host connection string finds the primary again.
    private var reachedReadOnly = false
    var dialect: SQLDialect { .postgresql }

    init(uri: String) throws {
        guard let connection = PQconnectdb(PostgresLocation.withConnectTimeout(uri)) else { throw PostgresError(message: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(message: "cannot connect to \(PostgresLocation.redacted(uri)): \(message)")
        }
        handle = connection
        _ = try query("SET client_min_messages = warning", [])
    }

    deinit { PQfinish(handle) }

    func query(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
        let result = try execute(sql, values)
        defer { PQclear(result) }
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        let types = (0..<columnCount).map { PQftype(result, Int32($0)) }
        var rows: [Row] = []
        rows.reserveCapacity(Int(PQntuples(result)))
        for row in 0..<PQntuples(result) {
            var cells: [SQLValue] = []
            cells.reserveCapacity(columnCount)
            for column in 0..<columnCount {
                if PQgetisnull(result, row, Int32(column)) == 1 {
                    cells.append(.null)
                    continue
                }
                let text = String(cString: PQgetvalue(result, row, Int32(column)))
                cells.append(Self.value(text, type: types[column]))
            }
            rows.append(Row(columns: columns, values: cells))
        }
        return rows
    }

    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        let result = try execute(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs statements that bind nothing (DDL, several at once).
    func runScript(_ sql: String) throws {
        if sql == "BEGIN" { try reconnectIfLost() }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try runScript("BEGIN")
        inTransaction = true
        defer { inTransaction = false }
        do {
            let value = try body()
            try runScript("COMMIT")
            return value
        } catch {
            try? runScript("ROLLBACK")
            throw error
        }
    }

    func readTogether<T>(_ body: () throws -> T) throws -> T {
        try body()
    }

    /// Whether the server is a standby in recovery (read-only).
    func isStandby() throws -> Bool {
        try scalar("SELECT pg_is_in_recovery()")?.integer == 1
    }

    func lock(_ name: String) throws {
        _ = try query("SELECT pg_advisory_xact_lock(hashtextextended(?1, 0))", [.text(name)])
    }

    /// A connection PostgreSQL dropped (a restart, a failover) is made again
    /// before the next statement, so that the server needs no restart once
    /// the database is back (it answered 500 for good, issue 23). Never in
    /// the middle of a transaction: that one has failed, and its caller
    /// rolls back.
    private func reconnectIfLost() throws {
        // An idle connection whose server died (a failover) still says OK
        // until libpq reads from it: read what is there, so that it is made
        // again now rather than fail one request. A backend that outlived its
        // postmaster sends a FATAL message before it closes: the first read
        // takes the message, the next one the end of the connection.
        if !inTransaction {
            var socket = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            for _ in 0..<4 where PQstatus(handle) == CONNECTION_OK && poll(&socket, 1, 0) > 0 {
                _ = PQconsumeInput(handle)
            }
        }
        guard PQstatus(handle) != CONNECTION_OK || reachedReadOnly else { return }
        if inTransaction { throw PostgresError(message: "the connection was lost in a transaction", connectionLost: true) }
        reachedReadOnly = false
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else {
            throw PostgresError(message: "no connection: " + String(cString: PQerrorMessage(handle)), connectionLost: true)
        }
        translated.removeAll()
        _ = try query("SET client_min_messages = warning", [])
    }

    private func execute(_ sql: String, _ values: [SQLValue]) throws -> OpaquePointer {
        try reconnectIfLost()
        let text = translated[sql] ?? {
            let rewritten = Self.numberedPlaceholders(sql)
            translated[sql] = rewritten
            return rewritten
        }()
        let parameters: [UnsafeMutablePointer<CChar>?] = values.map { value in
            Self.text(of: value).map { strdup($0) }
        }
        defer { parameters.forEach { free($0) } }
        let result = parameters.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            PQexecParams(handle, text, Int32(values.count), nil, pointers.baseAddress, nil, nil, 0)
        }
        do { try check(result) } catch {
            PQclear(result)
            throw error
        }
        return result!
    }

    /// Throws the error a result holds; the caller still owns (and clears) the result.
    private func check(_ result: OpaquePointer?) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = String(cString: PQerrorMessage(handle))
            let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
            if state == PostgresError.readOnly { reachedReadOnly = true }
            throw PostgresError(message: message, sqlState: state, connectionLost: PQstatus(handle) != CONNECTION_OK)
        }
    }

    /// `?1` → `$1`, outside quoted strings.
    static func numberedPlaceholders(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count)
        var quoted = false
        for c in sql {
            if c == "'" { quoted.toggle() }
            out.append(c == "?" && !quoted ? "$" : c)
        }
        return out
    }

    private static func text(of value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let v): return String(v)
        case .real(let v): return "\(v)"
        case .text(let v): return v
        case .blob(let v): return String(decoding: v, as: UTF8.self)
        }
    }

    /// int2, int4, int8 → integer; float4, float8, numeric → real; bool → 0 or 1.
    private static func value(_ text: String, type: Oid) -> SQLValue {
        switch type {
        case 20, 21, 23: return Int64(text).map { .integer($0) } ?? .text(text)
        case 700, 701, 1700: return Double(text).map { .real($0) } ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        default: return .text(text)
        }
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}
