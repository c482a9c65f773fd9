import LibJSON
import LibSync
import Testing

/// `lib resolve --merge`'s decision on a conflict's three versions.
@Suite struct DocumentMergeTests {
    let base = JSONObject([("title", .string("A")), ("year", .integer(1))])

    @Test func fieldsChangedOnOneSideEachMerge() {
        let mine = JSONObject([("title", .string("B")), ("year", .integer(1))])
        let theirs = JSONObject([("title", .string("A")), ("year", .integer(2))])
        guard case .document(let merge) = DocumentMerge(base: base, mine: mine, theirs: theirs) else {
            Issue.record("not merged"); return
        }
        #expect(merge.merged == JSONObject([("title", .string("B")), ("year", .integer(2))]))
        #expect(merge.fromTheirs == ["year"] && merge.fromMine == ["title"])
    }

    @Test func aFieldChangedOnBothSidesClashesByName() {
        let mine = JSONObject([("title", .string("B")), ("year", .integer(3))])
        let theirs = JSONObject([("title", .string("C")), ("year", .integer(2))])
        #expect(DocumentMerge(base: base, mine: mine, theirs: theirs) == .clash(.fields(["title", "year"])))
    }

    @Test func deletesMeetChanges() {
        let changed = JSONObject([("title", .string("C")), ("year", .integer(1))])
        #expect(DocumentMerge(base: base, mine: nil, theirs: base) == .delete)
        #expect(DocumentMerge(base: base, mine: nil, theirs: changed) == .clash(.deletedHereChangedThere))
        #expect(DocumentMerge(base: base, mine: changed, theirs: nil) == .clash(.changedHereDeletedThere))
        #expect(DocumentMerge(base: base, mine: base, theirs: nil) == .theirs, "unchanged here, deleted there")
        #expect(DocumentMerge(base: nil, mine: base, theirs: nil) == .clash(.changedHereDeletedThere), "a create of a document gone")
        #expect(DocumentMerge(base: base, mine: nil, theirs: nil) == .theirs, "deleted on both sides")
    }
}
