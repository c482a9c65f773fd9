import LibCLI
@testable import LibCommands
import Testing
import LibBase

private let registry = CommandRegistry.lib

/// Every help text lib can print, with a name for failure messages.
private func everyHelpText() -> [(name: String, text: String)] {
    let help = HelpText(registry: .lib)
    return [("lib --help", help.programHelp()), ("lib (no arguments)", help.shortUsage())]
        + registry.commands.map { ("lib \($0.name) --help", help.commandHelp($0)) }
}

@Test func everyHelpTextFitsEightyColumns() {
    for (name, text) in everyHelpText() {
        for line in text.split(separator: "\n") where line.count > 80 {
            Issue.record("\(name): line of \(line.count) columns: \(line)")
        }
        #expect(!text.contains("\t"), "\(name) has a tab")
    }
}

@Test func programHelpListsVisibleCommandsGlobalOptionsAndExitCodes() {
    let text = HelpText(registry: .lib).programHelp()
    #expect(text.hasPrefix("Usage: lib [-A ACCOUNT] [--json] [-q] [-v] [--no-color] COMMAND ...\n"))
    for command in registry.visibleCommands {
        #expect(text.contains("\n  \(command.name) "), "\(command.name) missing")
    }
    #expect(!text.contains("__complete"))
    #expect(!text.contains("__man"))
    for code in ExitCode.allCases {
        #expect(text.contains("\n  \(code.rawValue) "), "exit code \(code.rawValue) missing")
    }
}

@Test func commandHelpShowsSynopsisOptionsExamplesAndExitCodes() {
    let text = HelpText(registry: .lib).commandHelp(Push.command)
    #expect(text.hasPrefix("Usage: lib push [--wait DURATION | --watch] [--all] [--strict] [--force]\n       [--dry-run]\n\nSend pending writes to the server, in order.\n"))
    #expect(text.contains("\nOptions:\n      --wait DURATION  Keep trying for up to DURATION in all (for cron)\n"))
    #expect(text.contains("\n  -h, --help  ") || text.contains("\n  -h, --help "))
    #expect(text.contains("\nExamples:\n  lib push\n"))
    #expect(text.contains("\n  lib -q push --wait 60\n"))
    #expect(text.contains("\nExit status:\n  0   Everything was sent.\n"))
    #expect(text.contains("\n  75  Offline or the server is unreachable; the writes are kept.\n"))
}

@Test func synopsesMatchDesign() {
    // The spellings in DESIGN.md's "Commands" section, with --create and
    // --delete shown as the exclusive pair they are, and push's --strict
    // (protocol v2's whole-version rule, asked for by issue 34).
    let expected = [
        "lib login [SERVER_URL] [--user NAME] [--alias NAME] [--password-stdin | --token-stdin] [--restore | --no-restore] [--headless]",
        "lib logout [ACCOUNT] [--discard] [--yes]",
        "lib switch [ACCOUNT] [--alias NAME]",
        "lib rule [DIR] [ACCOUNT] [--remove]",
        "lib get PATH [--offline | --fresh] [--timeout DURATION]",
        "lib edit PATH [FIELD=STRING | FIELD:=JSON ...] [--create | --delete] [--push]",
        "lib new COLLECTION [FIELD=STRING | FIELD:=JSON ...]",
        "lib push [--wait DURATION | --watch] [--all] [--strict] [--force] [--dry-run]",
        "lib pull [--all] [--watch]",
        "lib search TEXT ... [--sort FIELD] [--limit N]",
        "lib status [--short | --porcelain | --prompt] [--all]",
        "lib diff [PATH]",
        "lib discard [PATH ...] [--all] [--force] [--yes]",
        "lib restore [PATH ...] [--all] [--force] [--yes]",
        "lib log [PATH] [--max-count N] [--offline]",
        "lib revert PATH",
        "lib resolve [PATH] [--mine | --theirs | --merge | --edit | --discard] [--whole] [--yes]",
        "lib doctor",
        "lib completion bash|zsh|fish",
        "lib help [COMMAND]",
    ]
    #expect(registry.visibleCommands.map(\.synopsis) == expected)
    #expect(registry.synopsis == "lib [-A ACCOUNT] [--json] [-q] [-v] [--no-color] COMMAND ...")
}

@Test func everyCommandHasHelpTextExamplesAndExitCodes() {
    for command in registry.visibleCommands {
        #expect(!command.summary.isEmpty && command.summary.count <= 60, "\(command.name) summary")
        #expect(!command.discussion.isEmpty, "\(command.name) discussion")
        #expect(!command.examples.isEmpty, "\(command.name) examples")
        #expect(command.exitStatuses.map(\.code).contains(.success), "\(command.name) exit 0")
        #expect(command.exitStatuses.map(\.code).contains(.usage), "\(command.name) exit 2")
        for example in command.examples {
            #expect(example.commandLine.hasPrefix("lib ") || example.commandLine.contains("lib \(command.name)"))
        }
    }
}
