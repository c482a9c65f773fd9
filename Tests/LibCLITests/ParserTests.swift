import LibCLI
@testable import LibCommands
import Testing

/// A command line that parses, and what it must parse into.
struct ParseCase: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let command: String
    var globals = GlobalOptions()
    var options: NamedValues<OptionValue> = [:]
    var values: NamedValues<[String]> = [:]

    var testDescription: String { "lib " + arguments.joined(separator: " ") }
}

private let parseCases: [ParseCase] = [
    ParseCase(arguments: ["status"], command: "status"),
    ParseCase(arguments: ["--", "status"], command: "status"),
    // Each form of a global option that takes a value.
    ParseCase(arguments: ["-A", "alice", "status"], command: "status", globals: GlobalOptions(account: "alice")),
    ParseCase(arguments: ["-Aalice", "status"], command: "status", globals: GlobalOptions(account: "alice")),
    ParseCase(arguments: ["--account", "alice", "status"], command: "status", globals: GlobalOptions(account: "alice")),
    ParseCase(arguments: ["--account=alice@h:1", "status"], command: "status", globals: GlobalOptions(account: "alice@h:1")),
    // Combined short flags.
    ParseCase(arguments: ["-qA", "bob", "push"], command: "push", globals: GlobalOptions(account: "bob", quiet: true)),
    ParseCase(arguments: ["-qAbob", "push"], command: "push", globals: GlobalOptions(account: "bob", quiet: true)),
    ParseCase(
        arguments: ["--json", "-q", "--no-color", "status", "--short"], command: "status",
        globals: GlobalOptions(json: true, quiet: true, noColor: true), options: ["short": .flag]),
    // Global options anywhere on the line, as gh takes them; `--` ends them too.
    ParseCase(arguments: ["status", "--json"], command: "status", globals: GlobalOptions(json: true)),
    ParseCase(arguments: ["push", "-q"], command: "push", globals: GlobalOptions(quiet: true)),
    ParseCase(
        arguments: ["get", "books/b-7", "--json", "-A", "bob"], command: "get",
        globals: GlobalOptions(account: "bob", json: true), values: ["PATH": ["books/b-7"]]),
    ParseCase(arguments: ["-q", "push", "--all", "--no-color"], command: "push",
              globals: GlobalOptions(quiet: true, noColor: true), options: ["all": .flag]),
    ParseCase(arguments: ["get", "--", "--json"], command: "get", values: ["PATH": ["--json"]]),
    ParseCase(arguments: ["--", "get", "--json"], command: "get", values: ["PATH": ["--json"]]),
    // -v counts.
    ParseCase(arguments: ["-v", "get", "x"], command: "get", globals: GlobalOptions(verbosity: 1), values: ["PATH": ["x"]]),
    ParseCase(arguments: ["-vv", "get", "x"], command: "get", globals: GlobalOptions(verbosity: 2), values: ["PATH": ["x"]]),
    ParseCase(arguments: ["-v", "get", "x", "--verbose"], command: "get", globals: GlobalOptions(verbosity: 2), values: ["PATH": ["x"]]),
    // Durations: seconds, fractions, units.
    ParseCase(arguments: ["push", "--wait", "90s"], command: "push", options: ["wait": .seconds(90)]),
    ParseCase(arguments: ["push", "--wait", "2m"], command: "push", options: ["wait": .seconds(120)]),
    ParseCase(arguments: ["push", "--wait", "1.5"], command: "push", options: ["wait": .seconds(1.5)]),
    ParseCase(arguments: ["push", "--wait=1h"], command: "push", options: ["wait": .seconds(3600)]),
    // Command options: separate and attached values, before and after arguments.
    ParseCase(arguments: ["push", "--wait", "60"], command: "push", options: ["wait": .seconds(60)]),
    ParseCase(arguments: ["push", "--wait=0", "--all"], command: "push", options: ["wait": .seconds(0), "all": .flag]),
    ParseCase(
        arguments: ["get", "--timeout", "2.5", "books/b-7"], command: "get",
        options: ["timeout": .seconds(2.5)], values: ["PATH": ["books/b-7"]]),
    ParseCase(
        arguments: ["get", "books/b-7", "--offline"], command: "get",
        options: ["offline": .flag], values: ["PATH": ["books/b-7"]]),
    ParseCase(arguments: ["get", "-"], command: "get", values: ["PATH": ["-"]]),
    // `--` ends options.
    ParseCase(arguments: ["get", "--", "--offline"], command: "get", values: ["PATH": ["--offline"]]),
    ParseCase(
        arguments: ["edit", "books/b-7", "title=Dune", "year:=1965", "--push"], command: "edit",
        options: ["push": .flag], values: ["PATH": ["books/b-7"], "FIELD=STRING | FIELD:=JSON": ["title=Dune", "year:=1965"]]),
    ParseCase(
        arguments: ["edit", "books/b-7", "--", "--note=x"], command: "edit",
        values: ["PATH": ["books/b-7"], "FIELD=STRING | FIELD:=JSON": ["--note=x"]]),
    ParseCase(arguments: ["edit", "books/b-9", "--create"], command: "edit", options: ["create": .flag], values: ["PATH": ["books/b-9"]]),
    ParseCase(
        arguments: ["login", "http://127.0.0.1:8080", "--user", "alice", "--password-stdin", "--no-restore"],
        command: "login", options: ["user": .text("alice"), "password-stdin": .flag, "no-restore": .flag],
        values: ["SERVER_URL": ["http://127.0.0.1:8080"]]),
    // A value that starts with a dash is given attached.
    ParseCase(arguments: ["login", "--user=-odd", "--token-stdin"], command: "login", options: ["user": .text("-odd"), "token-stdin": .flag]),
    ParseCase(arguments: ["logout", "bob", "--discard", "--yes"], command: "logout", options: ["discard": .flag, "yes": .flag], values: ["ACCOUNT": ["bob"]]),
    ParseCase(arguments: ["switch"], command: "switch"),
    ParseCase(arguments: ["switch", "alice"], command: "switch", values: ["ACCOUNT": ["alice"]]),
    ParseCase(arguments: ["resolve"], command: "resolve"),
    ParseCase(arguments: ["resolve", "books/b-7", "--merge"], command: "resolve", options: ["merge": .flag], values: ["PATH": ["books/b-7"]]),
    ParseCase(arguments: ["status", "--porcelain", "--all"], command: "status", options: ["porcelain": .flag, "all": .flag]),
    ParseCase(arguments: ["completion", "zsh"], command: "completion", values: ["SHELL": ["zsh"]]),
    ParseCase(arguments: ["help", "push"], command: "help", values: ["COMMAND": ["push"]]),
    ParseCase(arguments: ["__complete", "paths", "bo"], command: "__complete", values: ["TOPIC": ["paths"], "PREFIX": ["bo"]]),
]

@Test(arguments: parseCases)
func commandLineParses(_ testCase: ParseCase) throws {
    let outcome = try CommandLineParser(registry: .lib).parse(testCase.arguments)
    guard case .run(let parsed) = outcome else {
        Issue.record("expected a command to run, got \(outcome)")
        return
    }
    #expect(parsed.name == testCase.command)
    #expect(parsed.globalOptions == testCase.globals)
    #expect(parsed.optionValues == testCase.options)
    #expect(parsed.argumentValues == testCase.values)
}

/// A command line that asks for help or the version instead of running.
struct OutcomeCase: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable, Equatable {
        case programHelp, commandHelp(String), version, missingCommand
    }

    let arguments: [String]
    let expected: Expected

    var testDescription: String { "lib " + arguments.joined(separator: " ") }
}

private let outcomeCases: [OutcomeCase] = [
    OutcomeCase(arguments: [], expected: .missingCommand),
    OutcomeCase(arguments: ["-q"], expected: .missingCommand),
    OutcomeCase(arguments: ["--version"], expected: .version),
    OutcomeCase(arguments: ["-q", "--version"], expected: .version),
    OutcomeCase(arguments: ["--help"], expected: .programHelp),
    OutcomeCase(arguments: ["-h"], expected: .programHelp),
    OutcomeCase(arguments: ["--help", "push"], expected: .commandHelp("push")),
    OutcomeCase(arguments: ["push", "--help"], expected: .commandHelp("push")),
    OutcomeCase(arguments: ["push", "-h"], expected: .commandHelp("push")),
    // Help wins over what else is wrong on the line.
    OutcomeCase(arguments: ["get", "--help"], expected: .commandHelp("get")),
    OutcomeCase(arguments: ["push", "--wiat", "--help"], expected: .commandHelp("push")),
]

@Test(arguments: outcomeCases)
func commandLineAsksForHelpOrVersion(_ testCase: OutcomeCase) throws {
    let actual: OutcomeCase.Expected?
    switch try CommandLineParser(registry: .lib).parse(testCase.arguments) {
    case .help(nil): actual = .programHelp
    case .help(let command?): actual = .commandHelp(command.name)
    case .version: actual = .version
    case .missingCommand: actual = .missingCommand
    case .run: actual = nil
    }
    #expect(actual == testCase.expected)
}

/// A wrong command line and the exact two lines `lib` must print for it.
struct UsageErrorCase: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let message: String
    /// The command whose help the second line points to, if any.
    var command: String?

    var testDescription: String { "lib " + arguments.joined(separator: " ") }

    var expectedReport: String {
        "lib: \(message)\nRun 'lib \(command.map { $0 + " " } ?? "")--help' for usage.\n"
    }
}

let usageErrorCases: [UsageErrorCase] = [
    // Unknown commands, with and without suggestions; hidden ones are never suggested.
    UsageErrorCase(arguments: ["stauts"], message: "unknown command 'stauts'. Did you mean 'status'?"),
    UsageErrorCase(arguments: ["puhs", "--all"], message: "unknown command 'puhs'. Did you mean 'push'?"),
    UsageErrorCase(arguments: ["logi"], message: "unknown command 'logi'. Did you mean 'login' or 'log'?"),
    UsageErrorCase(arguments: ["frobnicate"], message: "unknown command 'frobnicate'"),
    UsageErrorCase(arguments: ["__compelte"], message: "unknown command '__compelte'"),
    UsageErrorCase(arguments: ["help", "stauts"], message: "unknown command 'stauts'. Did you mean 'status'?"),
    // Unknown options.
    UsageErrorCase(arguments: ["push", "--wiat", "5"], message: "unknown option '--wiat' for 'push'. Did you mean '--wait'?", command: "push"),
    UsageErrorCase(arguments: ["status", "--shrot"], message: "unknown option '--shrot' for 'status'. Did you mean '--short'?", command: "status"),
    UsageErrorCase(arguments: ["push", "--frobnicate"], message: "unknown option '--frobnicate' for 'push'", command: "push"),
    UsageErrorCase(arguments: ["status", "-x"], message: "unknown option '-x' for 'status'", command: "status"),
    UsageErrorCase(arguments: ["--jsno", "status"], message: "unknown option '--jsno'. Did you mean '--json'?"),
    UsageErrorCase(arguments: ["--no-colour", "status"], message: "unknown option '--no-colour'. Did you mean '--no-color'?"),
    UsageErrorCase(arguments: ["-x", "status"], message: "unknown option '-x'"),
    UsageErrorCase(arguments: ["-qx", "status"], message: "unknown option '-x'"),
    // Global options after the command are still checked.
    UsageErrorCase(arguments: ["status", "--no-color", "--no-color"], message: "option '--no-color' given twice", command: "status"),
    UsageErrorCase(arguments: ["push", "-A"], message: "option '-A' needs a value (ACCOUNT)", command: "push"),
    UsageErrorCase(arguments: ["status", "--jsno"], message: "unknown option '--jsno' for 'status'. Did you mean '--json'?", command: "status"),
    // Missing and malformed values.
    UsageErrorCase(arguments: ["push", "--wait"], message: "option '--wait' needs a value (DURATION)", command: "push"),
    UsageErrorCase(arguments: ["push", "--wait", "--all"], message: "option '--wait' needs a value (DURATION)", command: "push"),
    UsageErrorCase(arguments: ["-A"], message: "option '-A' needs a value (ACCOUNT)"),
    UsageErrorCase(arguments: ["--account", "-q", "status"], message: "option '--account' needs a value (ACCOUNT)"),
    UsageErrorCase(arguments: ["--account=", "status"], message: "option '--account' needs a value (ACCOUNT)"),
    UsageErrorCase(arguments: ["login", "--user="], message: "option '--user' needs a value (NAME)", command: "login"),
    UsageErrorCase(arguments: ["push", "--wait", "soon"], message: "option '--wait' needs a duration such as 90, 90s, 2m or 1.5, not 'soon'", command: "push"),
    UsageErrorCase(arguments: ["push", "--wait", "2x"], message: "option '--wait' needs a duration such as 90, 90s, 2m or 1.5, not '2x'", command: "push"),
    UsageErrorCase(arguments: ["push", "--wait", "m"], message: "option '--wait' needs a duration such as 90, 90s, 2m or 1.5, not 'm'", command: "push"),
    UsageErrorCase(arguments: ["push", "--wait=-5"], message: "option '--wait' needs a duration such as 90, 90s, 2m or 1.5, not '-5'", command: "push"),
    UsageErrorCase(arguments: ["get", "x", "--timeout", "abc"], message: "option '--timeout' needs a duration such as 90, 90s, 2m or 1.5, not 'abc'", command: "get"),
    UsageErrorCase(arguments: ["get", "x", "--timeout", "1e3"], message: "option '--timeout' needs a duration such as 90, 90s, 2m or 1.5, not '1e3'", command: "get"),
    UsageErrorCase(arguments: ["get", "x", "--timeout=inf"], message: "option '--timeout' needs a duration such as 90, 90s, 2m or 1.5, not 'inf'", command: "get"),
    UsageErrorCase(arguments: ["get", "x", "--timeout=.5"], message: "option '--timeout' needs a duration such as 90, 90s, 2m or 1.5, not '.5'", command: "get"),
    UsageErrorCase(arguments: ["push", "--all=yes"], message: "option '--all' does not take a value", command: "push"),
    UsageErrorCase(arguments: ["--json=1", "status"], message: "option '--json' does not take a value"),
    // Repeated options.
    UsageErrorCase(arguments: ["get", "x", "--timeout", "1", "--timeout", "2"], message: "option '--timeout' given twice", command: "get"),
    UsageErrorCase(arguments: ["push", "--all", "--all"], message: "option '--all' given twice", command: "push"),
    UsageErrorCase(arguments: ["-q", "--quiet", "status"], message: "option '--quiet' given twice"),
    UsageErrorCase(arguments: ["-A", "a", "--account=b", "status"], message: "option '--account' given twice"),
    // Conflicting options.
    UsageErrorCase(arguments: ["get", "x", "--offline", "--fresh"], message: "'--offline' and '--fresh' cannot be used together", command: "get"),
    UsageErrorCase(arguments: ["status", "--porcelain", "--short"], message: "'--porcelain' and '--short' cannot be used together", command: "status"),
    UsageErrorCase(arguments: ["resolve", "b", "--mine", "--theirs"], message: "'--mine' and '--theirs' cannot be used together", command: "resolve"),
    UsageErrorCase(arguments: ["resolve", "--discard", "--edit"], message: "'--discard' and '--edit' cannot be used together", command: "resolve"),
    UsageErrorCase(
        arguments: ["login", "--password-stdin", "--token-stdin"],
        message: "'--password-stdin' and '--token-stdin' cannot be used together", command: "login"),
    UsageErrorCase(arguments: ["login", "--no-restore", "--restore"], message: "'--no-restore' and '--restore' cannot be used together", command: "login"),
    UsageErrorCase(arguments: ["edit", "b", "--create", "--delete"], message: "'--create' and '--delete' cannot be used together", command: "edit"),
    // Arguments.
    UsageErrorCase(arguments: ["get"], message: "missing argument PATH for 'get'", command: "get"),
    UsageErrorCase(arguments: ["get", "--offline"], message: "missing argument PATH for 'get'", command: "get"),
    UsageErrorCase(arguments: ["push", "now"], message: "unexpected argument 'now' for 'push'", command: "push"),
    UsageErrorCase(arguments: ["push", "--", "--help"], message: "unexpected argument '--help' for 'push'", command: "push"),
    UsageErrorCase(arguments: ["switch", "alice", "bob"], message: "unexpected argument 'bob' for 'switch'", command: "switch"),
    UsageErrorCase(arguments: ["completion"], message: "missing argument SHELL for 'completion' (bash, zsh or fish)", command: "completion"),
    UsageErrorCase(arguments: ["completion", "tcsh"], message: "unknown SHELL 'tcsh' for 'completion' (expected bash, zsh or fish)", command: "completion"),
    UsageErrorCase(arguments: ["completion", "bahs"], message: "unknown SHELL 'bahs' for 'completion'. Did you mean 'bash'?", command: "completion"),
    UsageErrorCase(arguments: ["completion", "bsh"], message: "unknown SHELL 'bsh' for 'completion'. Did you mean 'bash' or 'zsh'?", command: "completion"),
    UsageErrorCase(
        arguments: ["edit", "books/b-7", "title"],
        message: "invalid assignment 'title' for 'edit' (expected FIELD=STRING or FIELD:=JSON)", command: "edit"),
    UsageErrorCase(
        arguments: ["edit", "books/b-7", ":=1"],
        message: "invalid assignment ':=1' for 'edit' (expected FIELD=STRING or FIELD:=JSON)", command: "edit"),
]

@Test(arguments: usageErrorCases)
func usageErrorNamesTheCulpritAndExitsTwo(_ testCase: UsageErrorCase) {
    let run = runInProcess(testCase.arguments)
    #expect(run.exitCode == .usage, "\(run)")
    #expect(run.exitCode.rawValue == 2)
    #expect(run.stderr == testCase.expectedReport, "\(run)")
    #expect(run.stdout == "")
}

@Test func parsedCommandReadsValuesThroughTheDeclarations() throws {
    let outcome = try CommandLineParser(registry: .lib).parse(
        ["-A", "alice", "edit", "books/b-7", "title=Dune", "year:=1965", "--push"])
    guard case .run(let parsed) = outcome else {
        Issue.record("expected a command, got \(outcome)")
        return
    }
    #expect(parsed.globalOptions.account == "alice")
    #expect(parsed.argument(Edit.path) == "books/b-7")
    #expect(parsed.isSet(Edit.push))
    #expect(!parsed.isSet(Edit.create))
    #expect(parsed.assignments(Edit.assignments) == [
        FieldAssignment(field: "title", value: .string("Dune")),
        FieldAssignment(field: "year", value: .json("1965")),
    ])

    guard case .run(let push) = try CommandLineParser(registry: .lib).parse(["push", "--wait", "90"]) else {
        Issue.record("expected push to run")
        return
    }
    #expect(push.seconds(Push.wait) == 90)
    #expect(push.text(Push.wait) == nil)
    #expect(!push.isSet(Push.all))
}

@Test(arguments: [
    ("title=Dune", FieldAssignment(field: "title", value: .string("Dune"))),
    ("title=", FieldAssignment(field: "title", value: .string(""))),
    ("note=a=b", FieldAssignment(field: "note", value: .string("a=b"))),
    ("tags:=[\"x\"]", FieldAssignment(field: "tags", value: .json("[\"x\"]"))),
    ("a:b=c", FieldAssignment(field: "a:b", value: .string("c"))),
])
func fieldAssignmentSplitsAtTheFirstEquals(_ text: String, _ expected: FieldAssignment) {
    #expect(FieldAssignment(parsing: text) == expected)
}

@Test(arguments: ["title", "=x", ":=1", ""])
func fieldAssignmentRejectsWhatIsNotOne(_ text: String) {
    #expect(FieldAssignment(parsing: text) == nil)
}
