import Foundation
import LibCLI
@testable import LibCommands
import TestSupport
import Testing

/// Runs the built `lib` binary.
private func lib(_ arguments: [String], home: String = "/nonexistent-lib-home") throws -> CommandResult {
    try CommandRunner.run(BuiltProducts.path("lib"), arguments, environment: environmentForBuiltLib(home: home))
}

@Test func noArgumentsPrintsShortUsageAndExitsTwo() throws {
    let result = try lib([])
    #expect(result.status == 2, "\(result)")
    #expect(result.stdout.isEmpty)
    #expect(result.stderr == """
        Usage: lib [-A ACCOUNT] [--json] [-q] [-v] [--no-color] COMMAND ...
        Commands: login logout switch rule get edit new push pull search status diff
                  discard restore log revert resolve doctor completion help
        Run 'lib --help' for more.

        """, "\(result)")
}

@Test func versionPrintsTheVersion() throws {
    let result = try lib(["--version"])
    #expect(result.status == 0 && result.stdout == "lib 0.1.0\n" && result.stderr.isEmpty, "\(result)")
}

@Test func helpForms() throws {
    let main = try lib(["--help"])
    #expect(main.status == 0 && main.stdout == HelpText(registry: .lib).programHelp() && main.stderr.isEmpty, "\(main)")
    #expect(main.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 })
    let helpPush = try lib(["help", "push"])
    let pushHelp = try lib(["push", "--help"])
    #expect(helpPush.status == 0 && pushHelp.status == 0)
    #expect(helpPush.stdout == pushHelp.stdout)
    #expect(pushHelp.stdout == HelpText(registry: .lib).commandHelp(Push.command))
    #expect(pushHelp.stdout.hasPrefix("Usage: lib push [--wait DURATION | --watch] [--all] [--strict] [--force]\n       [--dry-run]\n"))
    #expect(pushHelp.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 })
    let helpAlone = try lib(["help"])
    #expect(helpAlone.stdout == main.stdout)
}

@Test func usageErrorsFromTheBinaryExitTwoWithTheExactMessage() throws {
    for testCase in usageErrorCases.prefix(8) + usageErrorCases.suffix(8) {
        let result = try lib(testCase.arguments)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr == testCase.expectedReport, "\(result)")
        #expect(result.stdout.isEmpty)
    }
}

@Test(arguments: ["login", "logout", "switch", "get books/b-7", "edit books/b-7 title=x", "push --wait 5", "status --short", "diff", "discard books/b-7", "resolve"])
func commandsWithoutHandlersParseThenSayNotImplemented(_ line: String) throws {
    let arguments = line.split(separator: " ").map(String.init)
    let output = OutputBuffer(), errors = OutputBuffer()
    let context = CommandContext(standardOutput: .capturing(into: output), standardError: .capturing(into: errors),
                                 environment: ["LIB_HOME": "/nonexistent"])
    let status = CommandDispatcher(registry: .lib, handlers: [:]).run(arguments, context: context)
    #expect(status == .failure)
    #expect(errors.text == "lib: '\(arguments[0])' is not implemented yet\n")
}

@Test func completionAndManCommandsPrintTheGeneratedFiles() throws {
    for shell in Shell.allCases {
        let result = try lib(["completion", shell.rawValue])
        #expect(result.status == 0)
        let checkedIn = try Repository.text("completions/\(shell.scriptFileName)")
        #expect(result.stdout == checkedIn, "lib completion \(shell)")
    }
    let manual = try lib(["__man"])
    let checkedIn = try Repository.text("man/lib.1")
    #expect(manual.status == 0 && manual.stdout == checkedIn)
}
