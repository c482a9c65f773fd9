@testable import LibBase
import LibCLI
@testable import LibCommands
import Testing

/// Every command the registry lists (and so the parser, help, completions
/// and the man page) is one of lib's verbs, found by the dispatcher's
/// switch, or one of LibCLI's built-in ones. A verb cannot lack a placement
/// or a run: `Verb` requires both.
@Test(arguments: CommandRegistry.lib.commands.map(\.name))
func everyRegisteredCommandHasAHandler(name: String) {
    let handled = LibCommandList.handler(named: name) != nil
        || BuiltinCommands.handler(named: name, registry: .lib) != nil
    #expect(handled, "\(name) has no handler")
}

@Test func theVerbListAndTheDispatchersSwitchAgree() {
    var names: Set<String> = []
    for verb in LibCommandList.verbs {
        let name = nameOf(verb)
        let found = LibCommandList.verb(named: name).map { ObjectIdentifier($0) }
        #expect(found == ObjectIdentifier(verb), "\(name)")
        names.insert(name)
    }
    #expect(names.count == LibCommandList.verbs.count)
    #expect(LibCommandList.handler(named: "frobnicate") == nil)
}

/// Where each verb runs, from its typed options: the static `lib` for what
/// this device can do alone, `lib-online` for the network or the keyring.
@Test(arguments: [
    (["status"], false), (["status", "--prompt"], false), (["diff"], false), (["discard", "books/b-1"], false),
    (["switch"], false), (["resolve"], false), (["get", "books", "--offline"], false), (["edit", "books/b-1", "a=1"], false),
    (["get", "books"], true), (["edit", "books/b-1", "a=1", "--push"], true), (["push"], true), (["login"], true),
    (["logout"], true), (["doctor"], true), (["search", "dune"], false), (["pull"], true), (["pull", "--all"], true),
    (["export", "--deleted"], false), (["import", "-", "--dry-run"], false),
])
func eachVerbSaysWhereItRuns(arguments: [String], online: Bool) throws {
    guard case .run(let parsed) = try CommandLineParser(registry: .lib).parse(arguments),
          let verb = LibCommandList.verb(named: parsed.name) else {
        Issue.record("\(arguments) did not parse to a verb"); return
    }
    #expect(try runsOnline(verb, parsed) == online, "\(arguments)")
}

private func nameOf<V: Verb>(_ verb: V.Type) -> String { V.name }

private func runsOnline<V: Verb>(_ verb: V.Type, _ parsed: ParsedCommand) throws -> Bool {
    try V.runsOnline(V.options(parsed))
}

/// A name that is not one path component (it cannot come from the index or
/// a login, which check user names) still makes a path inside the accounts
/// directory: no crash, no way out.
@Test(arguments: [("alice@127.0.0.1:8080", "alice@127.0.0.1:8080"), ("../../tmp/x", "..%2F..%2Ftmp%2Fx"),
                  ("a/b", "a%2Fb"), ("..", "%2E%2E"), (".", "%2E"), ("50%/x", "50%25%2Fx")])
func accountDirectoriesStayInsideTheAccountsDirectory(name: String, component: String) {
    let paths = AccountPaths(directories: LibDirectories(config: "/h/config", data: "/h/data", state: "/h/state"))
    #expect(paths.accountDirectory(name) == "/h/data/accounts/" + component)
}
