import Foundation
import LibBase
import LibBookSchema
import LibHTTPServer

/// What `lib-server`'s flags ask for when it serves (`ServerFlags.serve`).
struct ServeOptions {
    /// What the command line asks lib-server to do.
    enum Request { case serve, help, version }

    var request = Request.serve
    var database = ""
    var host = "127.0.0.1"
    var port = 8080
    /// `--ops-listen`: where /livez, /readyz, /metrics and /drain are served; none without it.
    var operations: (host: String, port: Int)?
    var demo = false
    var bookSchema = BuiltInBookSchema.schema
    var limits = HTTPServerLimits()
    var sessionLifetime = LibraryService.defaultSessionLifetime
    var changeRetention = LibraryService.defaultChangeRetention
    /// Only from flags: a variable left in a service's environment must
    /// never make a production server misbehave (issue 23).
    var faults: [FaultRule] = []
    var faultControl = false
    /// `--max-batch-writes N`: the most items one v2 batch takes.
    var maxBatchWrites = WriteBatchLimits().maxItems
    /// `--guard-books N`, `--guard-percent P`: the mass-change guard of one
    /// v2 batch (N = 0: none).
    var guardBooks = MassChangeGuard.standard.books
    var guardPercent = MassChangeGuard.standard.percent
    var massChangeGuard: MassChangeGuard? {
        guardBooks == 0 ? nil : MassChangeGuard(books: guardBooks, percent: guardPercent)
    }
    /// `--legacy-protocol`: no protocol-v2 routes.
    var v1Only = false
    /// `--no-device-grant`: no device sign-in (RFC 8628).
    var deviceGrant = true
    var verbose = false

    /// `--listen HOST:PORT`; an IPv6 host in brackets.
    static func parseListen(_ text: String, flag: String = "--listen", example: Int = 8080) throws(ServerUsageError) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ServerUsageError("\(flag) wants HOST:PORT, as in 127.0.0.1:\(example) or [::1]:0, not '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ServerUsageError("\(flag) needs a host, as in 127.0.0.1:\(port)") }
        return (host, port)
    }

    /// `--ops-listen PORT` (on 127.0.0.1) or `--ops-listen HOST:PORT`.
    static func parseOperationsListen(_ text: String) throws(ServerUsageError) -> (host: String, port: Int) {
        if let port = Int(text) {
            guard (0...65535).contains(port) else { throw ServerUsageError("--ops-listen wants a port from 0 to 65535, not '\(text)'") }
            return ("127.0.0.1", port)
        }
        return try parseListen(text, flag: "--ops-listen", example: 9181)
    }

    /// `--book-schema FILE`: a schema that cannot be read or applied stops
    /// the server before it listens (exit 2), naming the file and the reason.
    static func loadBookSchema(_ path: String) throws(ServerUsageError) -> BookSchema {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerUsageError("--book-schema: couldn't read '\(path)'")
        }
        do { return try BookSchema(text: String(decoding: data, as: UTF8.self)) } catch {
            throw ServerUsageError("--book-schema '\(path)': \(error.message)")
        }
    }

    /// A whole number from 0 to `most` for `flag`, which says what it counts.
    static func count(_ text: String, for flag: String, upTo most: Int, wants: String) throws(ServerUsageError) -> Int {
        guard text.allSatisfy({ $0 >= "0" && $0 <= "9" }), let n = Int(text), n <= most else {
            throw ServerUsageError("\(flag) wants \(wants), not '\(text)'")
        }
        return n
    }

    /// A whole number above 0 for `flag`, which says what it counts.
    static func positive(_ text: String, for flag: String, wants: String) throws(ServerUsageError) -> Int {
        guard let n = Int(text), n > 0 else { throw ServerUsageError("\(flag) wants \(wants), not '\(text)'") }
        return n
    }
}

/// What `lib-server user add`'s flags ask for (`ServerFlags.userAdd`).
struct UserAddOptions {
    var name = ""
    var database = ""
    var role = Role.reader
    var wantsHelp = false
}
