import LibCLI
@testable import LibCommands
import Testing

/// `lib search` as typed on a day of use (issue 49).

/// Several words unquoted are one query: `lib search frank herbert` finds
/// Dune as `lib search 'frank herbert'` does.
@Test func unquotedWordsAreOneQuery() throws {
    let machine = try Machine()
    machine.signInWithDune()
    let run = machine.lib("search", "frank", "herbert")
    #expect(run.exitCode == .success && run.stdout.contains("\"Dune\""), "\(run)")
    let none = machine.lib("search")
    #expect(none.exitCode == .usage && none.stderr.contains("missing argument TEXT"), "\(none)")
}
