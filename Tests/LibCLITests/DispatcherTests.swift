import Foundation
import LibAccounts
import LibCLI
@testable import LibCommands
import LibJSON
import Synchronization
import TestSupport
import Testing
import LibBase

@Test func handlerReceivesTheParsedCommandAndContext() {
    let seen = Mutex<(account: String?, wait: Double?, json: Bool)?>(nil)
    let run = runInProcess(["-A", "alice", "--json", "push", "--wait", "30"], handlers: [
        Push.command.name: { parsed, context in
            seen.withLock { $0 = (parsed.globalOptions.account, parsed.seconds(Push.wait), context.globalOptions.json) }
            context.standardOutput.write("pushed\n")
            return .attention
        },
    ])
    #expect(run.exitCode == .attention)
    #expect(run.stdout == "pushed\n")
    let values = seen.withLock { $0 }
    #expect(values?.account == "alice" && values?.wait == 30 && values?.json == true)
}

private struct OfflineError: ReportableError {
    var message: String { "You're offline (no network route to library.example.org)" }
    var exitCode: ExitCode { .temporaryFailure }
}

private struct UnexpectedError: Error, CustomStringConvertible {
    var description: String { "something odd" }
}

@Test(arguments: [
    (CommandFailure("no such account 'carol'") as any Error, ExitCode.failure, "lib: no such account 'carol'\n"),
    (CommandFailure("Your session for alice has expired: run `lib login`", exitCode: .authentication), .authentication,
     "lib: Your session for alice has expired: run `lib login`\n"),
    (SilentFailure(.attention), .attention, ""),
    (OfflineError(), .temporaryFailure, "lib: You're offline (no network route to library.example.org)\n"),
    (UnexpectedError(), .failure, "lib: something odd\n"),
    (UsageError("bad", command: "push"), .usage, "lib: bad\nRun 'lib push --help' for usage.\n"),
])
func errorsMapToExitCodesInOnePlace(_ error: any Error, _ code: ExitCode, _ stderr: String) {
    let report = ErrorReport(for: error)
    #expect(report.exitCode == code)
    #expect(report.text == stderr)
    let run = runInProcess(["status"], handlers: [Status.command.name: { _, _ in throw error }])
    #expect(run.exitCode == code)
    #expect(run.stderr == stderr)
}

@Test func exitCodesAreDesignsTable() {
    #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 75])
}

@Test func unimplementedCommandParsesFirst() {
    let bad = runInProcess(["get", "--offline", "--fresh", "x"])
    #expect(bad.exitCode == .usage)
    let good = runInProcess(["get", "x"])
    #expect(good.exitCode == .failure && good.stderr == "lib: 'get' is not implemented yet\n")
}

@Test(arguments: [
    (true, [String: String](), false, true),
    (false, [:], false, false),  // not a terminal
    (true, ["NO_COLOR": "1"], false, false),
    (true, ["NO_COLOR": ""], false, true),  // empty counts as unset
    (true, [:], true, false),  // --no-color
    (true, ["TERM": "dumb"], false, false),  // a terminal that takes no escapes
    (true, ["TERM": "xterm-256color"], false, true),
])
func colourOnlyOnATerminalWithoutNoColor(_ terminal: Bool, _ environment: [String: String], _ noColorFlag: Bool, _ expected: Bool) {
    let context = CommandContext(
        standardOutput: .capturing(into: OutputBuffer(), isTerminal: terminal),
        standardError: .capturing(into: OutputBuffer(), isTerminal: false),
        environment: environment, globalOptions: GlobalOptions(noColor: noColorFlag))
    #expect(context.colorsStandardOutput == expected)
    #expect(context.colorsStandardError == false)
}

private enum GreetingKey: ServiceKey {
    static let defaultValue = "default"
}

@Test func servicesHoldFactoriesByKeyWithDefaults() {
    var context = CommandContext(
        standardOutput: .capturing(into: OutputBuffer()), standardError: .capturing(into: OutputBuffer()), environment: [:])
    #expect(context.services[GreetingKey.self] == "default")
    context.services[GreetingKey.self] = "fake"
    #expect(context.services[GreetingKey.self] == "fake")
}

@Test func contextCarriesTheClockAndDirectories() throws {
    let fixed = UnixTime(secondsSince1970: 1_700_000_000)
    let context = CommandContext(
        standardOutput: .capturing(into: OutputBuffer()), standardError: .capturing(into: OutputBuffer()),
        environment: ["LIB_HOME": "/tmp/h"], now: { fixed })
    #expect(context.now() == fixed)
    #expect(try context.directories.data == "/tmp/h/data")
    let live = CommandContext(
        standardOutput: .capturing(into: OutputBuffer()), standardError: .capturing(into: OutputBuffer()), environment: [:])
    #expect(abs(live.now().secondsSince1970 - Date().timeIntervalSince1970) < 5)
}

private struct FixedPaths: CompletionSource {
    func resourcePaths(startingWith prefix: String, context: CommandContext) -> [String] {
        ["books", "books/b-7"].filter { $0.hasPrefix(prefix) }
    }
}

@Test func completePathsAsksTheCompletionSource() {
    let run = runInProcess(["__complete", "paths", "books/"]) { $0.completionSource = FixedPaths() }
    #expect(run.exitCode == .success && run.stdout == "books/b-7\n")
    let none = runInProcess(["__complete", "paths"])
    #expect(none.exitCode == .success && none.stdout == "")
}

@Test func completeAccountsReadsTheIndexAsEveryCommandDoes() throws {
    let home = try TemporaryDirectory()
    let directories = try LibDirectories.resolve(environment: ["LIB_HOME": home.path])
    try FileManager.default.createDirectory(atPath: directories.config, withIntermediateDirectories: true)
    let origin = ServerOrigin(scheme: "http", host: "h", port: 1)
    try AccountIndex(accounts: [Account(origin: origin, userID: "u-1", username: "alice"), Account(origin: origin, userID: "u-2", username: "bob")],
                     currentName: "bob@h:1").save(to: directories.config)
    let run = runInProcess(["__complete", "accounts"], environment: ["LIB_HOME": home.path]) { $0.completionSource = CacheCompletionSource() }
    #expect(run.exitCode == .success && run.stdout == "alice@h:1\nbob@h:1\n", "\(run)")
    let some = runInProcess(["__complete", "accounts", "b"], environment: ["LIB_HOME": home.path]) { $0.completionSource = CacheCompletionSource() }
    #expect(some.stdout == "bob@h:1\n", "\(some)")
    let empty = runInProcess(["__complete", "accounts"], environment: ["LIB_HOME": home.file("missing")]) { $0.completionSource = CacheCompletionSource() }
    #expect(empty.exitCode == .success && empty.stdout.isEmpty && empty.stderr.isEmpty)
}

@Test func versionAndHelpGoToStandardOutput() {
    let version = runInProcess(["--version"])
    #expect(version.exitCode == .success && version.stdout == "lib 0.1.0\n" && version.stderr.isEmpty)
    let help = runInProcess(["help", "get"])
    #expect(help.exitCode == .success && help.stdout == HelpText(registry: .lib).commandHelp(Get.command))
}

@Test func underJSONErrorsAreOneJSONDocumentOnStandardError() throws {
    let failing: [String: CommandHandler] = [
        Status.command.name: { _, _ in throw CommandFailure("You're offline", exitCode: .temporaryFailure, reason: "offline") },
    ]
    let run = runInProcess(["status", "--json"], handlers: failing)
    #expect(run.exitCode == .temporaryFailure)
    #expect(run.stdout.isEmpty)
    #expect(run.stderr == #"{"error":{"message":"You're offline","exit_code":75,"reason":"offline"}}"# + "\n", "\(run)")

    // A usage error is JSON too, wherever --json is on the line.
    let usage = runInProcess(["push", "--wiat", "5", "--json"])
    #expect(usage.exitCode == .usage)
    let document = try JSONParser.parse(usage.stderr)
    #expect(document["error"]?["exit_code"] == 2)
    #expect(document["error"]?["reason"] == "usage")
    #expect(document["error"]?["message"]?.stringValue?.hasPrefix("unknown option '--wiat' for 'push'") == true)
}

@Test func quietSilencesTemporaryFailuresOnlyAndTheThresholdComesFromTheEnvironment() {
    let handlers: [String: CommandHandler] = [
        Status.command.name: { _, _ in throw CommandFailure("offline", exitCode: .temporaryFailure) },
        Get.command.name: { _, _ in throw CommandFailure("conflict", exitCode: .attention) },
    ]
    let temporary = runInProcess(["-q", "status"], handlers: handlers)
    #expect(temporary.exitCode == .temporaryFailure && temporary.stderr.isEmpty && temporary.stdout.isEmpty)
    let attention = runInProcess(["get", "x", "-q"], handlers: handlers)
    #expect(attention.exitCode == .attention && attention.stderr == "lib: conflict\n")

    #expect(QuietRule(environment: [:]).threshold == 86_400)
    #expect(QuietRule(environment: ["LIB_QUIET_AFTER": "2"]).threshold == 2)
    #expect(QuietRule(environment: ["LIB_QUIET_AFTER": "6h"]).threshold == 21_600)
    #expect(QuietRule(environment: ["LIB_QUIET_AFTER": "2d"]).threshold == 172_800)
    let rule = QuietRule(threshold: 60)
    #expect(rule.silences(.temporaryFailure, oldestPendingAge: 59))
    #expect(!rule.silences(.temporaryFailure, oldestPendingAge: 61))
    #expect(!rule.silences(.attention, oldestPendingAge: nil))
    #expect(!rule.silences(.authentication, oldestPendingAge: nil))
}
