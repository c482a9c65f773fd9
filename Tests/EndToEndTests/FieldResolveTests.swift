import Foundation
import Testing
import TestSupport

/// `lib resolve --mine/--theirs` settle only the fields changed on both
/// sides: bob changed `copies` and the title, alice the title and the year;
/// after either choice and a push, the server has every non-clashing change
/// of both. Replacing the whole document is a separate choice that says
/// what it reverts before it does.
@Suite struct FieldResolveTests {
    func conflict() throws -> ResolveTests.Conflict {
        try ResolveTests().makeConflict(bob: ["title=Dune (bob)", "copies:=7"], alice: ["title=Dune (alice)", "year:=1966"])
    }

    func latest(_ c: ResolveTests.Conflict) throws -> String {
        try serverHistory(c.server, book: "b-7").last?.document ?? ""
    }

    @Test func theViewSaysWhatEachChoiceWouldDo() throws {
        let c = try conflict()
        let show = try c.alice.lib("resolve", "books/b-7")
        #expect(show.status == 3, "\(show)")
        #expect(show.stdout.contains("\n* title "), "\(show)")
        #expect(show.stdout.contains("""
            What each choice would do:
              --mine            your title; keeps copies from the server and year from you
              --theirs          the server's title; keeps copies from the server and year from you
              --mine --whole    your whole version; reverts the server's change to copies
              --theirs --whole  the server's whole version; reverts your change to year
              --edit            the merge in your editor, both values of each clash marked
              --discard         drops your write; the server keeps its version

            """), "\(show)")
    }

    @Test func mineTakesMyTitleAndKeepsBobsCopies() throws {
        let c = try conflict()
        let mine = try c.alice.lib("resolve", "books/b-7", "--mine")
        #expect(mine.status == 0, "\(mine)")
        #expect(mine.stdout == "Resolved books/b-7 for \(c.account): your title; kept copies from the server and year from you; it will be sent at the next push.\n", "\(mine)")
        let push = try c.alice.lib("push")
        #expect(push.status == 0, "\(push)")
        let document = try latest(c)
        #expect(document.contains("\"title\":\"Dune (alice)\""), "\(document)")
        #expect(document.contains("\"copies\":7"), "bob's change is kept\n\(document)")
        #expect(document.contains("\"year\":1966"), "\(document)")
    }

    @Test func theirsTakesBobsTitleAndKeepsMyYear() throws {
        let c = try conflict()
        let theirs = try c.alice.lib("resolve", "books/b-7", "--theirs")
        #expect(theirs.status == 0, "\(theirs)")
        #expect(theirs.stdout == "Resolved books/b-7 for \(c.account): the server's title; kept copies from the server and year from you; it will be sent at the next push.\n", "\(theirs)")
        let push = try c.alice.lib("push")
        #expect(push.status == 0, "\(push)")
        let document = try latest(c)
        #expect(document.contains("\"title\":\"Dune (bob)\""), "\(document)")
        #expect(document.contains("\"copies\":7"), "\(document)")
        #expect(document.contains("\"year\":1966"), "my change is kept\n\(document)")
    }

    @Test func mineWholeRevertsBobsCopiesOnlyAfterSayingSo() throws {
        let c = try conflict()
        let unasked = try c.alice.lib("resolve", "books/b-7", "--mine", "--whole")
        #expect(unasked.status == 2, "\(unasked)")
        #expect(unasked.stderr.contains("--mine --whole reverts copies (changed by the server alone): add --yes to confirm, or use --mine to keep that change"), "\(unasked)")
        #expect(try c.alice.conflicts() == 1, "nothing changed")
        let wholeAlone = try c.alice.lib("resolve", "books/b-7", "--whole")
        #expect(wholeAlone.status == 2 && wholeAlone.stderr.contains("--whole goes with --mine or --theirs"), "\(wholeAlone)")

        let whole = try c.alice.lib("resolve", "books/b-7", "--mine", "--whole", "--yes")
        #expect(whole.status == 0, "\(whole)")
        #expect(whole.stdout == "Resolved books/b-7 for \(c.account): your whole version will be sent at the next push; it reverts copies (changed on the server).\n", "\(whole)")
        #expect(try c.alice.lib("push").status == 0)
        let document = try latest(c)
        #expect(document.contains("\"title\":\"Dune (alice)\"") && document.contains("\"copies\":3") && document.contains("\"year\":1966"), "\(document)")
    }
}
