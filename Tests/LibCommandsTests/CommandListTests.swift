import LibBase
import LibCLI
@testable import LibCommands
import Testing

/// Every command the registry lists (and so the parser, help, completions
/// and the man page) has a handler and says which program runs it.
@Test(arguments: CommandRegistry.lib.commands.map(\.name))
func everyRegisteredCommandHasAHandlerAndAPlacement(name: String) {
    let handled = LibCommandHandlers.handler(named: name) != nil
        || BuiltinCommands.handler(named: name, registry: .lib) != nil
    #expect(handled, "\(name) has no handler")
    #expect(CommandPlacement.of(name) != nil, "\(name) has no placement (lib or lib-online)")
}

@Test func aNameTheRegistryDoesNotKnowHasNeither() {
    #expect(LibCommandHandlers.handler(named: "frobnicate") == nil)
    #expect(CommandPlacement.of("frobnicate") == nil)
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
