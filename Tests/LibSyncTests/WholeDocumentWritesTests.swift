import Foundation
import LibJSON
import LibSync
import Testing
import TestSupport

/// A store the previous release made (writes as whole documents: made by
/// that release's `lib` against a demo lib-server, Fixtures/) opens, and
/// each write becomes the intent of the fields it changed: nothing lost,
/// nothing resent that was not going to be, no field sent that the user
/// did not change.
@Suite struct WholeDocumentWritesTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/store-whole-document-writes.sqlite").path

    func copyOfFixture(_ dir: TemporaryDirectory, as name: String = "store.sqlite") throws -> String {
        let path = dir.file(name)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: path)
        return path
    }

    @Test func everyWriteBecomesTheIntentOfTheFieldsItChanged() throws {
        let dir = try TemporaryDirectory()
        let store = try AccountStore(path: try copyOfFixture(dir))
        let items = try store.outbox.all()
        #expect(items.map(\.path) == ["books/b-3", "books/b-1", "books/b-1", "books/b-2", "books/x-1"])
        #expect(items.map(\.kind) == [.change, .change, .change, .delete, .create])
        #expect(items.map(\.intent.fieldNames) == [["copies"], ["title"], ["title", "year"], [], ["id", "title", "author"]])
        #expect(items.map(\.status) == [.conflict, .pending, .pending, .pending, .pending])
        #expect(items.map(\.attempts) == [1, 1, 0, 0, 0], "what may be on the server still is")
        #expect(items[1].mayBeOnServer && items[2].isUnsent)
        #expect(items[2].ifMatch == nil, "still waits for the answer to the write before it")
        #expect(try store.outbox.counts() == (pending: 4, conflicts: 1, rejected: 0))

        // The conflict's own side is only the copies the user set; the
        // server's title change is the server's.
        let conflict = items[0]
        let mine = try #require(conflict.intent.applied(to: conflict.base))
        let merge = FieldMerge(base: try #require(conflict.base), mine: mine, theirs: try #require(conflict.theirs))
        #expect(merge.isClean && merge.fromMine == ["copies"] && merge.fromTheirs == ["title"])

        // What a PUT of the first b-1 write sends is that write as it was.
        #expect(items[1].documentToSend?["title"] == "Alice 1")
        #expect(items[1].documentToSend?["year"] == 1813)
    }

    @Test func statusReadsAnOldStoreAsANewOne() throws {
        let dir = try TemporaryDirectory()
        let path = try copyOfFixture(dir)
        let reader = try AccountStore(readingFrom: path)
        #expect(try reader.outbox.all().count == 5)
        #expect(try AccountStore(readingFrom: path).outbox.counts().conflicts == 1)
    }

    @Test func writesSetAsideByTheOldReleaseRestore() throws {
        let dir = try TemporaryDirectory()
        let aside = SetAsideOutboxes(directory: dir.file("set-aside"))
        let key = SetAsideOutboxes.identityKey(origin: "http://127.0.0.1:8080", userID: "u-1")
        try FileManager.default.createDirectory(atPath: dir.file("set-aside/\(key)"), withIntermediateDirectories: true)
        _ = try copyOfFixture(dir, as: "set-aside/\(key)/00000000000000000001-1.sqlite")
        let store = try AccountStore(path: dir.file("store.sqlite"))
        #expect(try aside.restore(into: store, identityKey: key) == 5)
        #expect(try store.outbox.all().map(\.intent.fieldNames) == [["copies"], ["title"], ["title", "year"], [], ["id", "title", "author"]])
    }
}
