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

/// A statement `send` queued, and where its rows go.
private struct Queued {
    let sql: String
    let values: [SQLValue]
    let answer: SQLAnswer?
}

/// One libpq connection. Values go as text parameters and come back as
/// text, turned into integers or reals by their column's type.
final class PostgresConnection: SQLConnection {
    private let handle: OpaquePointer

    /// `?N` placeholders rewritten once per statement text.
    private var translated: [String: String] = [:]
    /// Statements prepared on this connection (parsed and planned once,
    /// then only bound and run), by their text: the names PostgreSQL knows
    /// them by. At most `preparedLimit`; past it, statements go as text.
    private var prepared: [String: String] = [:]
    /// Names given in this session (`lib_N`), never one twice.
    private var preparedSoFar = 0
    static let preparedLimit = 256
    private var inTransaction = false
    /// In `readTogether`: `send` queues, as in a transaction.
    private var readingTogether = false
    /// Statements `send` queued in this transaction, sent with its next round trip.
    private var queued: [Queued] = []
    /// How many round trips this connection has made: each time it sent
    /// statements and waited for their answers (`WriteRoundTripTests`).
    private(set) var roundTrips = 0
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
        try startSession()
    }

    deinit { PQfinish(handle) }

    private func startSession() throws {
        _ = try query("SET client_min_messages = warning", [])
    }

    /// A write's statements are planned for their values each time they run
    /// (what preparing saves them is the parsing): a plan made once for any
    /// values, while a table was small, scanned the idempotency keys whole
    /// once it had grown. Reads outside a transaction, lookups by primary
    /// key, keep the plan PostgreSQL caches.
    private static let writesPlannedForTheirValues = "SET LOCAL plan_cache_mode = force_custom_plan"

    func query(_ sql: String, _ values: [SQLValue]) throws -> [Row] {
        let result = try execute(sql, values)
        defer { PQclear(result) }
        return Self.rows(of: result)
    }

    func run(_ sql: String, _ values: [SQLValue]) throws -> Int {
        let result = try execute(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs statements that bind nothing (DDL, several at once), after
    /// what `send` queued.
    func runScript(_ sql: String) throws {
        if sql == "BEGIN" { try reconnectIfLost() }
        try flush()
        roundTrips += 1
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// BEGIN goes with the transaction's first round trip, COMMIT with its
    /// last: a transaction costs no round trip of its own.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try reconnectIfLost()
        queued = [Queued(sql: "BEGIN", values: [], answer: nil), Queued(sql: Self.writesPlannedForTheirValues, values: [], answer: nil)]
        inTransaction = true
        defer { inTransaction = false }
        do {
            let value = try body()
            queued.append(Queued(sql: "COMMIT", values: [], answer: nil))
            try flush()
            return value
        } catch {
            let begun = queued.first?.sql != "BEGIN"
            queued.removeAll()
            if begun { try? runScript("ROLLBACK") }
            throw error
        }
    }

    @discardableResult
    func send(_ sql: String, _ values: [SQLValue]) throws -> SQLAnswer {
        guard inTransaction || readingTogether else { return SQLAnswer(rows: try query(sql, values)) }
        let answer = SQLAnswer(awaiting: { [unowned self] in try flush() })
        queued.append(Queued(sql: sql, values: values, answer: answer))
        return answer
    }

    func flush() throws {
        guard !queued.isEmpty else { return }
        let statements = queued
        queued.removeAll()
        if let last = try pipeline(statements) { PQclear(last) }
    }

    /// What `body` sends goes with the round trip of the next statement
    /// whose answer it needs (one sync, so one implicit transaction): a
    /// token's check and a book's read cost one round trip.
    func readTogether<T>(_ body: () throws -> T) throws -> T {
        readingTogether = true
        defer {
            readingTogether = false
            queued.removeAll()
        }
        return try body()
    }

    /// Whether the server is a standby in recovery (read-only).
    func isStandby() throws -> Bool {
        try scalar("SELECT pg_is_in_recovery()")?.integer == 1
    }

    func lock(_ name: String) throws {
        try send("SELECT pg_advisory_xact_lock(hashtextextended(?1, 0))", [.text(name)])
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
        if PQpipelineStatus(handle) != PQ_PIPELINE_OFF { _ = PQexitPipelineMode(handle) }
        translated.removeAll()
        // A new session has none of the old one's prepared statements.
        prepared.removeAll()
        preparedSoFar = 0
        try startSession()
    }

    /// Runs a statement, after what `send` queued, and returns its result
    /// (the caller clears it).
    private func execute(_ sql: String, _ values: [SQLValue]) throws -> OpaquePointer {
        try reconnectIfLost()
        guard queued.isEmpty, let name = prepared[sql] else {
            // Preparing goes in the same round trip as the statement.
            let statements = queued + [Queued(sql: sql, values: values, answer: nil)]
            queued.removeAll()
            return try pipeline(statements)!
        }
        roundTrips += 1
        let result = withParameters(values) { PQexecPrepared(handle, name, Int32(values.count), $0, nil, nil, 0) }
        do { try check(result) } catch {
            PQclear(result)
            throw error
        }
        return result!
    }

    /// Sends the statements at once (libpq's pipeline mode), then reads all
    /// their answers: one round trip. The server runs them in order, each
    /// as if sent alone; after an error it skips the rest, and the first
    /// error is thrown. The rows of the statements before it go to their
    /// answers; the last statement's result is returned (the caller clears it).
    private func pipeline(_ statements: [Queued]) throws -> OpaquePointer? {
        try reconnectIfLost()
        roundTrips += 1
        guard PQenterPipelineMode(handle) == 1 else { throw PostgresError(message: String(cString: PQerrorMessage(handle))) }
        defer { _ = PQexitPipelineMode(handle) }
        // What each result answers, in order: a statement's preparing, or the statement.
        var slots: [Slot] = []
        for (index, statement) in statements.enumerated() {
            let values = statement.values
            var name = prepared[statement.sql]
            if name == nil, preparedSoFar < Self.preparedLimit {
                preparedSoFar += 1
                let fresh = "lib_\(preparedSoFar)"
                guard PQsendPrepare(handle, fresh, text(of: statement.sql), Int32(values.count), nil) == 1 else { break }
                slots.append(.preparing(statement.sql, name: fresh))
                name = fresh
            }
            let sent = withParameters(values) { parameters in
                if let name { return PQsendQueryPrepared(handle, name, Int32(values.count), parameters, nil, nil, 0) }
                return PQsendQueryParams(handle, text(of: statement.sql), Int32(values.count), nil, parameters, nil, nil, 0)
            }
            guard sent == 1 else { break }  // the connection is gone: reading says so
            slots.append(.statement(index))
        }
        _ = PQpipelineSync(handle)
        // Each statement's result, then a null; after the last, the sync's result.
        var results: [OpaquePointer?] = []
        var current: OpaquePointer?
        var nullsInARow = 0
        while true {
            if let result = PQgetResult(handle) {
                nullsInARow = 0
                if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                    PQclear(result)
                    break
                }
                if current == nil { current = result } else { PQclear(result) }
            } else {
                nullsInARow += 1
                // Two nulls in a row: nothing more comes (the connection is gone).
                if nullsInARow > 1 || PQstatus(handle) != CONNECTION_OK { break }
                results.append(current)
                current = nil
            }
        }
        if let current { PQclear(current) }
        defer { results.forEach { PQclear($0) } }
        var failure: (any Error)?
        var answered = 0
        for (position, slot) in slots.enumerated() {
            let result = position < results.count ? results[position] : nil
            if failure == nil {
                do { try check(result) } catch { failure = error }
            }
            guard failure == nil else { continue }
            switch slot {
            case .preparing(let sql, let name):
                prepared[sql] = name
            case .statement(let index):
                answered = index + 1
                if let answer = statements[index].answer, let result { answer.arrived(Self.rows(of: result)) }
            }
        }
        if let failure { throw failure }
        guard let last = results.last, results.count == slots.count, answered == statements.count else { return nil }
        results.removeLast()
        return last
    }

    /// What one result of a pipeline answers.
    private enum Slot {
        /// Preparing a statement's text under a name.
        case preparing(String, name: String)
        /// The statement at this index of the pipeline's statements.
        case statement(Int)
    }

    /// The statement's text with `$N` placeholders, rewritten once.
    private func text(of sql: String) -> String {
        if let text = translated[sql] { return text }
        let rewritten = Self.numberedPlaceholders(sql)
        translated[sql] = rewritten
        return rewritten
    }

    /// The values as C strings for libpq, for the call's duration.
    private func withParameters<T>(_ values: [SQLValue], _ call: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        let parameters: [UnsafeMutablePointer<CChar>?] = values.map { value in
            Self.text(of: value).map { strdup($0) }
        }
        defer { parameters.forEach { free($0) } }
        return parameters.map { UnsafePointer($0) }.withUnsafeBufferPointer { call($0.baseAddress) }
    }

    private static func rows(of result: OpaquePointer) -> [Row] {
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

    /// Throws the error a result holds; the caller still owns (and clears) the result.
    private func check(_ result: OpaquePointer?) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = result.map { String(cString: PQresultErrorMessage($0)) }.flatMap { $0.isEmpty ? nil : $0 }
                ?? String(cString: PQerrorMessage(handle))
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
