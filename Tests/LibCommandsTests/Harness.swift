import LibBase
import LibBookSchema
import LibCLI
@testable import LibCommands
import LibJSON
import LibKeyring
import LibNet
import LibSync
import Synchronization
import TestSupport
import Testing

/// A clock that stands still until the test moves it.
final class TestClock: Sendable {
    private let seconds: Mutex<Double>

    /// 2027-01-15 08:00:00 UTC: far from any real test run, so an age
    /// computed against the real clock would show.
    init(_ start: Double = 1_800_000_000) { seconds = Mutex(start) }

    var now: UnixTime { UnixTime(secondsSince1970: seconds.withLock { $0 }) }

    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

/// What one in-process run of a command produced.
struct Run: CustomStringConvertible {
    let arguments: [String]
    let exitCode: ExitCode
    let stdout: String
    let stderr: String

    var status: Int32 { exitCode.rawValue }

    var description: String {
        "lib \(arguments.joined(separator: " "))\nexit \(exitCode.rawValue)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---"
    }
}

/// One user's machine, in this process: a temporary LIB_HOME, the in-memory
/// keyring, a fixed clock and the stub server behind the transport seam.
/// Every command runs through the dispatcher as `lib-online` runs it
/// (ProgramRoleKey's default), from argv to exit code. No process starts.
final class Machine: @unchecked Sendable {
    let home: TemporaryDirectory
    let server: StubServer
    let keyring = InMemoryTokenStore()
    let clock = TestClock()
    var environment: [String: String]
    /// Whether standard output is a terminal (its width: COLUMNS, else 80).
    var outputIsTerminal = false

    init(server: StubServer = StubServer()) throws {
        home = try TemporaryDirectory("lib-commands")
        self.server = server
        // Nothing of the developer's session reaches a command: no bus, no
        // editor, no proxy, no colour decisions.
        environment = ["LIB_HOME": home.path, "HOME": home.path, "LANG": "C.UTF-8"]
    }

    /// `lib ARGUMENTS`, with `stdin` as standard input (not a terminal).
    @discardableResult
    func lib(_ arguments: String..., stdin: String = "") -> Run {
        lib(arguments, stdin: stdin)
    }

    @discardableResult
    func lib(_ arguments: [String], stdin: String = "") -> Run {
        let out = OutputBuffer(), err = OutputBuffer()
        let code = Self.dispatcher.run(arguments, context: context(stdin: stdin, out: out, err: err))
        return Run(arguments: arguments, exitCode: code, stdout: out.text, stderr: err.text)
    }

    /// A verb's `run`, called with typed options: no command line, no
    /// dispatcher. An error it throws is reported as lib reports it.
    @discardableResult
    func run<V: Verb>(_ verb: V.Type, _ options: V.Options, stdin: String = "") -> Run {
        let out = OutputBuffer(), err = OutputBuffer()
        let code: ExitCode
        do {
            code = try V.run(options, context(stdin: stdin, out: out, err: err))
        } catch {
            let report = ErrorReport(for: error)
            err.write(report.text)
            code = report.exitCode
        }
        return Run(arguments: [V.name], exitCode: code, stdout: out.text, stderr: err.text)
    }

    private func context(stdin: String, out: OutputBuffer, err: OutputBuffer) -> CommandContext {
        var services = CommandServices()
        services[TransportFactoryKey.self] = server
        services[TokenStoreKey.self] = keyring
        let clock = self.clock
        return CommandContext(
            standardInput: .text(stdin), standardOutput: .capturing(into: out, isTerminal: outputIsTerminal), standardError: .capturing(into: err),
            environment: environment, now: { clock.now }, services: services)
    }

    /// lib-online's dispatcher: every command's handler, in this process.
    static let dispatcher = CommandDispatcher(registry: .lib, handler: LibCommandList.handler(named:))

    // MARK: Accounts

    /// The account lib names `user` on the stub server.
    func account(_ user: String = "alice") -> String { "\(user)@\(server.origin.hostAndPort)" }

    /// Signs in as `user` through `lib login --password-stdin`, against the
    /// two requests lib-server answers for it.
    @discardableResult
    func signIn(_ user: String = "alice", id: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> Run {
        let userID = id ?? "u-\(user)"
        server.expectSignIn(user: user, password: "\(user)-demo", token: "lbt_\(user)", userID: userID, sourceLocation: sourceLocation)
        let run = lib("login", server.url, "--user", user, "--password-stdin", stdin: "\(user)-demo\n")
        #expect(run.exitCode == .success, "\(run)", sourceLocation: sourceLocation)
        return run
    }

    /// The keyring entry of a signed-in account.
    func keyringAccount(_ user: String = "alice", id: String? = nil) -> KeyringAccount {
        KeyringAccount(server: server.origin.description, userID: id ?? "u-\(user)", userName: user)
    }

    // MARK: The store

    var directories: LibDirectories { get throws { try LibDirectories.resolve(environment: environment) } }

    func storePath(_ user: String = "alice") throws -> String {
        AccountPaths(directories: try directories).storePath(account(user))
    }

    /// The account's store, as the commands left it.
    func store(_ user: String = "alice") throws -> AccountStore {
        try AccountStore(path: try storePath(user))
    }

    func outbox(_ user: String = "alice") throws -> [OutboxItem] { try store(user).outbox.all() }

    func cached(_ path: String, _ user: String = "alice") throws -> CachedDocument? {
        try store(user).cache.document(at: path)
    }

    /// Fails for each stub never used and each request no stub expected.
    func verify(sourceLocation: SourceLocation = #_sourceLocation) {
        server.verify(sourceLocation: sourceLocation)
    }
}

// MARK: - The stubs a scenario needs

extension StubServer {
    /// `POST /v1/sessions` with this user's password, then `GET /v1/me` with the token.
    func expectSignIn(user: String, password: String, token: String, userID: String, username: String? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        on("POST", "/v1/sessions", sourceLocation: sourceLocation) { request in
            let body = try? JSONParser.parse(request.body)
            guard body?["username"]?.stringValue == user, body?["password"]?.stringValue == password else {
                return Answers.problem(401, "Wrong user name or password")
            }
            return Answers.json(201, [
                "token": .string(token),
                "account": ["id": .string(userID), "username": .string(user), "role": "librarian"],
            ], [("Cache-Control", "no-store")])
        }
        expectMe(token: token, userID: userID, username: username ?? user, sourceLocation: sourceLocation)
    }

    func expectMe(token: String, userID: String, username: String, sourceLocation: SourceLocation = #_sourceLocation) {
        on("GET", "/v1/me", sourceLocation: sourceLocation) { request in
            guard request.headers["Authorization"] == "Bearer \(token)" else { return Answers.problem(401, "Sign in first") }
            return Answers.json(200, ["id": .string(userID), "username": .string(username), "role": "librarian"])
        }
    }

    /// The conditional schema read that rides on an account's first read.
    func expectSchema(sourceLocation: SourceLocation = #_sourceLocation) {
        on("GET", "/v1/schemas/book", sourceLocation: sourceLocation) { _ in Answers.bookSchema() }
    }

    /// `GET /v1/books/{id}` answered with the document and its ETag.
    func expectBook(_ id: String, _ document: JSONValue, etag: String, sourceLocation: SourceLocation = #_sourceLocation) {
        on("GET", "/v1/books/\(id)", sourceLocation: sourceLocation) { _ in Answers.book(document, etag: etag) }
    }
}

// MARK: - Fixtures

enum Fixtures {
    static let bookSchemaText = BuiltInBookSchema.text

    /// b-7 as the demo server has it.
    static let dune: JSONValue = ["id": "b-7", "title": "Dune", "author": "Frank Herbert", "year": 1965, "copies": 2]
    static let duneETag = "\"1-3b41f282\""

    /// b-7 after someone else changed it on the server.
    static let duneTheirs: JSONValue = ["id": "b-7", "title": "Dune", "author": "Frank Herbert", "year": 1965, "copies": 5]
    static let duneTheirsETag = "\"2-9bd03208\""
}

extension JSONValue {
    /// The value parsed from text a command printed or a request carried.
    static func parsing(_ text: String) -> JSONValue? { try? JSONParser.parse(text) }
    static func parsing(_ bytes: [UInt8]) -> JSONValue? { try? JSONParser.parse(bytes) }
}

extension Machine {
    /// Signs in and caches b-7 (one `lib get`), the start of most scenarios.
    func signInWithDune(sourceLocation: SourceLocation = #_sourceLocation) {
        signIn(sourceLocation: sourceLocation)
        server.expectSchema(sourceLocation: sourceLocation)
        server.expectBook("b-7", Fixtures.dune, etag: Fixtures.duneETag, sourceLocation: sourceLocation)
        let run = lib("get", "books/b-7")
        #expect(run.exitCode == .success, "\(run)", sourceLocation: sourceLocation)
    }
}
