import Foundation
import LibBookSchema
import LibHTTPServer
import LibStore

/// `lib-server`'s command line: serve, or add a user.
public enum ServerCommandLine {
    static let usage = """
        usage: lib-server --db PATH|URI [--listen HOST:PORT] [--demo] [--book-schema FILE]
                          [--max-connections-per-peer N] [--session-lifetime SECONDS]
                          [--fault SPEC]... [--fault-control] [--verbose]
               lib-server user add NAME [--role librarian|reader] --db PATH|URI   (password on stdin)

        Serves protocol v1 (docs/PROTOCOL.md). The first line on stdout is
        'listening on http://HOST:PORT'; --listen 127.0.0.1:0 picks a free port.
        --db takes an SQLite file, or postgresql://USER@HOST:PORT/DB for a
        PostgreSQL database several servers can share (docs/DEPLOY.md).
        --book-schema FILE validates books with that JSON Schema (2020-12)
        instead of the built-in one, and serves it at GET /v1/schemas/book.
        --session-lifetime SECONDS: a token older than that is refused (401);
        the default is 30 days (2592000).
        Faults for tests (docs/FAULTS.md) come only from --fault and
        --fault-control, never from the environment.
        """

    struct UsageError: Error { let message: String }

    /// Runs the command and returns the process's exit status.
    public static func main(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            if arguments.first == "user" { return try addUser(Array(arguments.dropFirst())) }
            return try serve(arguments, environment: environment)
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("lib-server: \(error.message)\n\n\(usage)\n".utf8))
            return 2
        } catch {
            FileHandle.standardError.write(Data("lib-server: \(error)\n".utf8))
            return 1
        }
    }

    private static func serve(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        var database: String?
        var listen = "127.0.0.1:8080"
        var demo = false, faultControl = false, verbose = false
        var bookSchema = BuiltInBookSchema.schema
        var limits = HTTPServerLimits()
        var sessionLifetime = LibraryService.defaultSessionLifetime
        // Only from flags: a variable left in a service's environment must
        // never make a production server misbehave (issue 23).
        var faults: [FaultRule] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--db": database = try value(for: argument, from: &rest)
            case "--listen": listen = try value(for: argument, from: &rest)
            case "--demo": demo = true
            case "--book-schema": bookSchema = try loadBookSchema(try value(for: argument, from: &rest))
            case "--fault":
                let text = try value(for: argument, from: &rest)
                faults.append(try usage { try FaultRule(parsing: text) })
            case "--fault-control": faultControl = true
            case "--max-connections-per-peer":
                let text = try value(for: argument, from: &rest)
                guard let n = Int(text), n > 0 else {
                    throw UsageError(message: "--max-connections-per-peer wants a positive number, not '\(text)'")
                }
                limits.maxConnectionsPerPeer = n
            case "--session-lifetime":
                let text = try value(for: argument, from: &rest)
                guard let seconds = Int(text), seconds > 0 else {
                    throw UsageError(message: "--session-lifetime wants a positive number of seconds, not '\(text)'")
                }
                sessionLifetime = TimeInterval(seconds)
            case "--verbose", "-v": verbose = true
            case "--help", "-h": print(usage); return 0
            case "--version": print("lib-server 0.1.0"); return 0
            default: throw UsageError(message: "unknown argument '\(argument)'")
            }
        }
        guard let database else { throw UsageError(message: "--db PATH is required") }
        let (host, port) = try parseListen(listen)

        let store = try ServerDatabase.open(database, demo: demo)
        var log: (@Sendable (String) -> Void)?
        if verbose { log = { line in FileHandle.standardError.write(Data("\(line)\n".utf8)) } }
        let service = LibraryService(store: store, faults: faults, allowsFaultControl: faultControl, bookSchema: bookSchema,
                                     sessionLifetime: sessionLifetime, log: log)
        let server = HTTPServer(limits: limits, handler: service.handle)
        let boundPort = try server.bind(host: host, port: port)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        // Unbuffered: whoever started the server waits for this line.
        FileHandle.standardOutput.write(Data("listening on http://\(shownHost):\(boundPort)\n".utf8))
        if !faults.isEmpty {
            FileHandle.standardError.write(Data("lib-server: faults in force: \(faults.map(\.description).joined(separator: "; "))\n".utf8))
        }

        // A parent may have started us with these blocked (Foundation's
        // Process leaves SIGTERM blocked in its children): unblock them, or
        // SIGTERM would never stop the server.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
        let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { server.stop() }
            source.resume()
            return source
        }
        server.run()
        signals.forEach { $0.cancel() }
        return 0
    }

    private static func addUser(_ arguments: [String]) throws -> Int32 {
        guard arguments.first == "add" else { throw UsageError(message: "unknown command 'user \(arguments.first ?? "")'; did you mean 'user add'?") }
        var name: String?, database: String?
        var role = Role.reader
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--db": database = try value(for: argument, from: &rest)
            case "--role":
                let text = try value(for: argument, from: &rest)
                guard let r = Role(rawValue: text) else { throw UsageError(message: "unknown role '\(text)' (librarian or reader)") }
                role = r
            default:
                if argument.hasPrefix("-") || name != nil { throw UsageError(message: "unknown argument '\(argument)'") }
                name = argument
            }
        }
        guard let name else { throw UsageError(message: "user add needs a NAME") }
        guard let database else { throw UsageError(message: "--db PATH is required") }
        var password = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        if password.hasSuffix("\n") { password.removeLast() }
        guard !password.isEmpty else { throw UsageError(message: "give the password on standard input") }
        let store = try ServerDatabase.open(database)
        try ServerDatabase.addUser(name, password: password, role: role, in: store)
        print("Added \(role.rawValue) \(name)")
        return 0
    }

    /// `--book-schema FILE`: a schema that cannot be read or applied stops
    /// the server before it listens (exit 2), naming the file and the reason.
    private static func loadBookSchema(_ path: String) throws -> BookSchema {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "--book-schema: couldn't read '\(path)'")
        }
        do { return try BookSchema(text: String(decoding: data, as: UTF8.self)) } catch {
            throw UsageError(message: "--book-schema '\(path)': \(error.message)")
        }
    }

    /// A fault spelled wrong is a usage error, like any other bad argument.
    private static func usage<T>(_ parse: () throws -> T) throws -> T {
        do { return try parse() } catch let error as FaultRuleError { throw UsageError(message: error.description) }
    }

    private static func value(for option: String, from rest: inout ArraySlice<String>) throws -> String {
        guard let value = rest.popFirst() else { throw UsageError(message: "\(option) needs a value") }
        return value
    }

    static func parseListen(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw UsageError(message: "--listen wants HOST:PORT, as in 127.0.0.1:8080 or [::1]:0, not '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw UsageError(message: "--listen needs a host, as in 127.0.0.1:\(port)") }
        return (host, port)
    }
}
