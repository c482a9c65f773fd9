import LibBase
import LibJSON
@testable import LibSync
import Testing
import TestSupport

/// The mass-change guard's counting rule (issue 48): which writes are
/// destructive, how books are counted, and the limit max(N, p%).
@Suite struct MassChangeRuleTests {
    let rule = MassChangeGuard.standard

    @Test func theLimitIsTheLargerOfTheCountAndTheShare() {
        #expect(rule.allowed(ofTotal: 3) == 20)
        #expect(rule.allowed(ofTotal: 0) == 20)
        #expect(rule.allowed(ofTotal: 1_000) == 200)
        // A small library can always be emptied.
        #expect(!rule.refuses(3, ofTotal: 3))
        #expect(!rule.refuses(20, ofTotal: 20))
        #expect(!rule.refuses(25, ofTotal: 1_000))
        #expect(!rule.refuses(200, ofTotal: 1_000))
        #expect(rule.refuses(201, ofTotal: 1_000))
        #expect(rule.refuses(300, ofTotal: 1_000))
        #expect(MassChangeGuard(books: 5, percent: 20).refuses(6, ofTotal: 20))
    }

    @Test func aDeleteOrABlankedValueIsDestructiveAnAddedOrChangedOneIsNot() {
        let book: JSONObject = ["id": "b-1", "title": "Dune", "tags": ["sf"], "notes": "", "series": nil]
        #expect(MassChangeGuard.isDestructive(before: book, after: nil))
        #expect(!MassChangeGuard.isDestructive(before: nil, after: book))
        #expect(!MassChangeGuard.isDestructive(before: nil, after: nil))
        #expect(!MassChangeGuard.isDestructive(before: book, after: book))
        var changed = book
        changed["title"] = "Dune Messiah"
        changed["year"] = 1969
        #expect(!MassChangeGuard.isDestructive(before: book, after: changed))
        for blank: JSONValue? in [nil, .null, "", []] {
            var blanked = book
            blanked["title"] = blank
            #expect(MassChangeGuard.isDestructive(before: book, after: blanked), "title → \(String(describing: blank))")
        }
        // A field that had no value cannot be blanked.
        var emptied = book
        emptied["notes"] = nil
        emptied["series"] = nil
        #expect(!MassChangeGuard.isDestructive(before: book, after: emptied))
        // 0 and false are values.
        #expect(!MassChangeGuard.isBlank(0) && !MassChangeGuard.isBlank(false) && !MassChangeGuard.isBlank(["x"]))
    }

    @Test func theOutboxCountsDistinctBooksOfPendingWrites() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("store.sqlite"))
        let base: JSONObject = ["id": "x", "title": "base", "tags": ["a"]]
        try store.outbox.enqueue(.delete("books/b-1", base: base))
        // Two writes of one book count once.
        try store.outbox.enqueue(.change("books/b-2", [("title", "")], base: base))
        try store.outbox.enqueue(.change("books/b-2", [("tags", [])], base: base))
        var removed = FieldChanges()
        removed["tags"] = .some(nil)
        try store.outbox.enqueue(.init(path: "books/b-3", intent: .change(removed), baseBody: JSONValue.object(base).serialized(),
                                       baseETag: "\"1-a\""))
        // Not destructive: a new value, a create.
        try store.outbox.enqueue(.change("books/b-4", [("title", "new")], base: base))
        try store.outbox.enqueue(.create("books/b-5", ["id": "b-5", "title": "New"]))
        try store.outbox.enqueue(.delete("books/b-6", base: base))
        let change = MassChange(items: try store.outbox.all(), books: 40)
        #expect(change == MassChange(destructive: 4, books: 40))
        // A conflict waits for lib resolve: a push does not send it.
        let b6 = try #require(try store.outbox.items(for: "books/b-6").first)
        try store.outbox.recordConflict(seq: b6.seq, theirsBody: nil, theirsETag: nil, now: 0)
        #expect(MassChange(items: try store.outbox.all(), books: 40).destructive == 3)
    }

    @Test func aRefusalIsKeptUntilWritesAreDiscarded() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: dir.file("store.sqlite"))
        try store.outbox.enqueue(.delete("books/b-1"))
        let refusal = MassChangeRefusal(destructive: 30, books: 100, allowed: 20, byServer: true, at: 1_700_000_000)
        try refusal.record(in: store)
        #expect(try MassChangeRefusal.recorded(in: store) == refusal)
        try store.outbox.discard(paths: ["books/b-1"])
        #expect(try MassChangeRefusal.recorded(in: store) == nil)
    }

    @Test func theSettingIsReadStrictly() throws {
        #expect(try MassChangeGuard.parse("50,30", from: "LIB_GUARD") == MassChangeGuard(books: 50, percent: 30))
        #expect(try MassChangeGuard.parse(" 0, 100 ", from: "LIB_GUARD") == MassChangeGuard(books: 0, percent: 100))
        #expect(try MassChangeGuard.parse("off", from: "LIB_GUARD") == nil)
        #expect(try MassChangeGuard.parse("OFF", from: "LIB_GUARD") == nil)
        for bad in ["", "20", "20,", ",20", "20,20,20", "-1,20", "20,101", "twenty,20", "20;20", "1e3,20", "+5,20", "99999999999,1"] {
            #expect(throws: MassChangeGuard.SettingError.self, "\(bad)") { try MassChangeGuard.parse(bad, from: "LIB_GUARD") }
        }
        do {
            _ = try MassChangeGuard.parse("20,150", from: "LIB_GUARD")
        } catch {
            #expect("\(error)" == "LIB_GUARD=20,150: the percentage 150 is over 100")
        }
    }
}
