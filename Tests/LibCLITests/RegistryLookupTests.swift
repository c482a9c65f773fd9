import LibCLI
import LibCommands
import Testing

/// The parser finds commands and global options through switches (so that a
/// command line builds nothing else); these must agree with the lists that
/// help, completions and the man page are generated from.
@Suite struct RegistryLookupTests {
    let registry = CommandRegistry.lib

    @Test func everyListedCommandIsFoundByItsNameAndNoOtherIs() {
        #expect(registry.commands.count == 25)
        for command in registry.commands {
            #expect(registry.command(named: command.name)?.summary == command.summary, "\(command.name)")
        }
        #expect(registry.command(named: "pus") == nil)
        #expect(registry.command(named: "") == nil)
    }

    @Test func everyGlobalOptionIsFoundByItsLongAndShortName() {
        #expect(registry.globalOptions.count == 7)
        for option in registry.globalOptions {
            #expect(registry.globalOption(named: option.name) == option, "--\(option.name)")
            if let short = option.short {
                #expect(registry.globalOption(short: short) == option, "-\(short)")
            }
        }
        let shorts = Set(registry.globalOptions.compactMap(\.short))
        for letter in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" where !shorts.contains(letter) {
            #expect(registry.globalOption(short: letter) == nil, "-\(letter)")
        }
        #expect(registry.globalOption(named: "versio") == nil)
    }
}
