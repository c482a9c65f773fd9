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

/// A search that finds nothing because of a typo says which indexed word
/// was meant, one for each word nothing starts with.
@Test func aTypoGetsTheNearestIndexedWord() throws {
    let machine = try Machine()
    machine.signInWithDune()
    let typo = machine.lib("search", "frank", "herbret")
    #expect(typo.exitCode == .success && typo.stderr.contains("No book on this device matches 'frank herbret'; did you mean 'frank herbert'?"),
            "\(typo)")
    let twoTypos = machine.lib("search", "fronk", "herbret")
    #expect(twoTypos.stderr.contains("did you mean 'frank herbert'?"), "\(twoTypos)")
    let far = machine.lib("search", "zzyzx")
    #expect(far.stderr.contains("No book on this device matches 'zzyzx'.") && !far.stderr.contains("did you mean"), "\(far)")
}
