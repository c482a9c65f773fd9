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
