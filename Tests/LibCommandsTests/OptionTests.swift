import LibBase
import LibJSON
import LibNet
import Testing

// Each verb's command line, as a table: a bad one exits 2 with a message
// naming the flag or argument and the verb's help, before any request or
// change; a good one reaches the verb with the value it means.

/// A command line that must be refused, and words its message must have.
struct BadLine: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let says: String
    var stdin = ""

    init(_ arguments: [String], says: String, stdin: String = "") {
        self.arguments = arguments
        self.says = says
        self.stdin = stdin
    }

    var testDescription: String { "lib " + arguments.joined(separator: " ") }
}

/// Runs `line` on a signed-in machine with b-7 cached and a change pending,
/// and checks the refusal: exit 2, the words, the verb's help, nothing sent
/// and nothing changed.
private func expectRefused(_ line: BadLine, verb: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let machine = try Machine()
    defer { machine.verify(sourceLocation: sourceLocation) }
    machine.signInWithDune(sourceLocation: sourceLocation)
    machine.lib("edit", "books/b-7", "copies:=3")
    let requests = machine.server.received.count
    let before = try machine.outbox()
    let run = machine.lib(line.arguments, stdin: line.stdin)
    #expect(run.exitCode == .usage, "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderr.hasPrefix("lib: "), "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderr.contains(line.says), "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderr.hasSuffix("Run 'lib \(verb) --help' for usage.\n"), "\(run)", sourceLocation: sourceLocation)
    #expect(run.stdout == "", sourceLocation: sourceLocation)
    #expect(machine.server.received.count == requests, "a usage error sends nothing", sourceLocation: sourceLocation)
    #expect(try machine.outbox() == before, "a usage error changes nothing", sourceLocation: sourceLocation)
}

private let url = "http://127.0.0.1:8080"

@Test(arguments: [
    BadLine(["login", "ftp://127.0.0.1"], says: "ftp"),
    BadLine(["login", url, "--password-stdin"], says: "login needs --user NAME when there is no terminal to ask on", stdin: "pw"),
    BadLine(["login", url, "--token-stdin"], says: "--token-stdin: standard input was empty"),
    BadLine(["login", url, "--user", "alice", "--password-stdin"], says: "the password is empty"),
    BadLine(["login", url, "--password-stdin", "--token-stdin"], says: "'--password-stdin' and '--token-stdin' cannot be used together"),
    BadLine(["login", url, "--restore", "--no-restore"], says: "'--restore' and '--no-restore' cannot be used together"),
    BadLine(["login", url, "--usr", "alice"], says: "unknown option '--usr' for 'login'. Did you mean '--user'?"),
])
func loginRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "login") }

@Test(arguments: [
    BadLine(["logout", "--discrad"], says: "unknown option '--discrad' for 'logout'. Did you mean '--discard'?"),
    BadLine(["logout", "alice", "bob"], says: "unexpected argument 'bob' for 'logout'"),
    BadLine(["logout", "--discard"], says: "--discard would delete 1 write not sent yet: add --yes to confirm"),
])
func logoutRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "logout") }

@Test(arguments: [
    BadLine(["switch", "alice", "bob"], says: "unexpected argument 'bob' for 'switch'"),
    BadLine(["switch", "--all"], says: "unknown option '--all' for 'switch'"),
])
func switchRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "switch") }

@Test(arguments: [
    BadLine(["get"], says: "missing argument PATH for 'get'"),
    BadLine(["get", "books/b-7", "--offline", "--fresh"], says: "'--offline' and '--fresh' cannot be used together"),
    BadLine(["get", "books/b-7", "--timeout", "soon"], says: "option '--timeout' needs a duration such as 90, 90s, 2m or 1.5, not 'soon'"),
    BadLine(["get", "books/b 7"], says: "books/b 7"),
    BadLine(["get", "books/b-7", "--ofline"], says: "unknown option '--ofline' for 'get'. Did you mean '--offline'?"),
])
func getRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "get") }

@Test(arguments: [
    BadLine(["edit", "books", "title=x"], says: "'books' is a collection; edit one of its documents, such as 'books/b-7'"),
    BadLine(["edit", "books/b-7", "--delete", "title=x"], says: "--delete takes no FIELD=VALUE assignments"),
    BadLine(["edit", "books/b-7", "--create", "--delete"], says: "'--create' and '--delete' cannot be used together"),
    BadLine(["edit", "books/b-7", "year:=19x5"], says: "year"),
    BadLine(["edit", "books/b-7", "title"], says: "invalid assignment 'title' for 'edit' (expected FIELD=STRING or FIELD:=JSON)"),
    BadLine(["edit", "books/b-7", "--pushh"], says: "unknown option '--pushh' for 'edit'. Did you mean '--push'?"),
])
func editRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "edit") }

@Test(arguments: [
    BadLine(["diff", "books/b-7", "books/b-8"], says: "unexpected argument 'books/b-8' for 'diff'"),
    BadLine(["diff", "--stat"], says: "unknown option '--stat' for 'diff'"),
])
func diffRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "diff") }

@Test(arguments: [
    BadLine(["discard"], says: "discard needs a PATH, such as 'books/b-7', or --all; run `lib status` to list the writes"),
    BadLine(["discard", "books/b-7", "--all"], says: "give PATHs or --all, not both"),
    BadLine(["discard", "books"], says: "'books' is a collection; discard the writes of one of its documents, such as 'books/b-7'"),
    BadLine(["discard", "--all"], says: "--all would take back 1 write of alice@127.0.0.1:8080: add --yes to confirm"),
    BadLine(["discard", "books/b-7", "--forse"], says: "unknown option '--forse' for 'discard'. Did you mean '--force'?"),
])
func discardRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "discard") }

@Test(arguments: [
    BadLine(["push", "--wait", "soon"], says: "option '--wait' needs a duration such as 90, 90s, 2m or 1.5, not 'soon'"),
    BadLine(["push", "--wait", "5", "--watch"], says: "'--wait' and '--watch' cannot be used together"),
    BadLine(["push", "now"], says: "unexpected argument 'now' for 'push'"),
    BadLine(["push", "--wiat", "5"], says: "unknown option '--wiat' for 'push'. Did you mean '--wait'?"),
])
func pushRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "push") }

@Test(arguments: [
    BadLine(["status", "--porcelain", "--short"], says: "'--porcelain' and '--short' cannot be used together"),
    BadLine(["status", "--shrot"], says: "unknown option '--shrot' for 'status'. Did you mean '--short'?"),
    BadLine(["status", "books/b-7"], says: "unexpected argument 'books/b-7' for 'status'"),
])
func statusRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "status") }

@Test(arguments: [
    BadLine(["resolve", "--merge"], says: "--merge needs a PATH, such as 'books/b-7'; run `lib resolve` to list what waits"),
    BadLine(["resolve", "books/b-7", "--whole"], says: "--whole goes with --mine or --theirs: it takes that side's whole document"),
    BadLine(["resolve", "books/b-7", "--merge", "--whole"], says: "--whole goes with --mine or --theirs"),
    BadLine(["resolve", "books", "--mine"], says: "'books' is a collection; resolve one of its documents, such as 'books/b-7'"),
    BadLine(["resolve", "books/b-7", "--mine", "--theirs"], says: "'--mine' and '--theirs' cannot be used together"),
])
func resolveRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "resolve") }

@Test(arguments: [
    BadLine(["doctor", "now"], says: "unexpected argument 'now' for 'doctor'"),
    BadLine(["doctor", "--fix"], says: "unknown option '--fix' for 'doctor'"),
])
func doctorRefusesABadCommandLine(_ line: BadLine) throws { try expectRefused(line, verb: "doctor") }

// MARK: Good command lines

/// `--timeout` reaches the request as its time limit, in each spelling;
/// with a copy cached and no --timeout, the server has 2 s.
@Test(arguments: [
    (["--timeout", "1.5"], 1.5), (["--timeout=90s"], 90.0), (["--timeout", "2m"], 120.0), ([String](), 2.0),
])
func getTimeoutSpellingsLimitTheRequest(_ flags: [String], _ seconds: Double) throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.server.on("GET", "/v1/books/b-7") { _ in Answers.notModified(etag: Fixtures.duneETag) }
    let run = machine.lib(["get", "books/b-7"] + flags)
    #expect(run.exitCode == .success, "\(run)")
    let limit = try #require(machine.server.requests("GET", "/v1/books/b-7").last?.timeout)
    let (whole, fraction) = limit.components
    let sent = Double(whole) + Double(fraction) / 1e18
    #expect(sent <= seconds && sent > seconds - 0.5, "\(limit)")
}

/// The account a command acts on: `-A` (before or after the verb), else
/// LIB_ACCOUNT, else the current one; a prefix is enough.
@Test(arguments: [
    (["-A", "alice", "status", "--porcelain"], [String: String](), "alice"),
    (["status", "--porcelain", "-A", "alice@127"], [:], "alice"),
    (["status", "--porcelain"], ["LIB_ACCOUNT": "alice"], "alice"),
    (["status", "--porcelain"], [:], "bob"),
    (["--account=bob", "status", "--porcelain"], ["LIB_ACCOUNT": "alice"], "bob"),
])
func theAccountComesFromTheFlagTheEnvironmentOrTheIndex(_ arguments: [String], _ environment: [String: String], _ user: String) throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn("alice")
    machine.signIn("bob")
    machine.environment.merge(environment) { $1 }
    let run = machine.lib(arguments)
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout.hasPrefix("account \(user)@127.0.0.1:8080\n"), "\(run)")
}

/// Global options after the verb mean the same as before it.
@Test(arguments: [["--json", "diff"], ["diff", "--json"]])
func globalOptionsWorkOnEitherSideOfTheVerb(_ arguments: [String]) throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.lib("edit", "books/b-7", "copies:=3")
    let run = machine.lib(arguments)
    #expect(run.exitCode == .success, "\(run)")
    #expect(JSONValue.parsing(run.stdout)?["account"] == "alice@127.0.0.1:8080", "\(run)")
}

/// `-q` silences what only says all went well, on every verb that says it.
@Test(arguments: [["-q", "edit", "books/b-7", "copies:=4"], ["-q", "switch", "alice"], ["-q", "discard", "books/b-7"],
                  ["edit", "books/b-7", "copies:=4", "--quiet"]])
func quietSaysNothingForSuccess(_ arguments: [String]) throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.lib("edit", "books/b-7", "copies:=3")
    let run = machine.lib(arguments)
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stdout == "" && run.stderr == "", "\(run)")
}
