import Foundation
import LibJSON
import Testing
import TestSupport

/// `lib export` and `lib import` (issue 48) against real lib-servers: an
/// export imported into an empty account on another server and exported
/// there gives the same books (id and fields; the ETags are that server's
/// own); importing the same file again queues nothing; a line older than
/// the server that changes a field someone else changed becomes a
/// conflict, never an overwrite; a bad file is refused whole, naming the
/// line.
@Suite struct ExportImportTests {
    /// The lines of an export, each checked against docs/json/export.schema.json.
    func exportedLines(_ lib: LibHarness, _ arguments: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let export = try lib.lib(["export"] + arguments)
        #expect(export.status == 0, "\(export)", sourceLocation: sourceLocation)
        let lines = export.stdout.split(separator: "\n").map(String.init)
        for line in lines { try JSONSchemaValidator.validate(line, against: "export") }
        return lines
    }

    /// id and fields of each book line: what must survive a round trip (the ETags are each server's own).
    func books(_ lines: [String]) throws -> [String: JSONValue] {
        var books: [String: JSONValue] = [:]
        for line in lines {
            let object = try JSONParser.parse(line).objectValue
            if let id = object?["id"]?.stringValue, let fields = object?["fields"] { books[id] = fields }
        }
        return books
    }

    func pending(_ lib: LibHarness) throws -> (pending: Int, conflicts: Int) {
        let status = try lib.lib("status", "--json")
        let entry = (try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])?.first ?? [:]
        return (entry["pending"] as? Int ?? -1, entry["conflicts"] as? Int ?? -1)
    }

    /// A lib-server with no books and one librarian, `dana`, added as lib-server(1) says.
    func emptyServer() throws -> ServerProcess {
        let dir = try TemporaryDirectory("lib-e2e-empty-server")
        let database = dir.file("server.sqlite")
        let add = try CommandRunner.run(BuiltProducts.path("lib-server"), ["user", "add", "dana", "--role", "librarian", "--db", database],
                                        stdin: "dana-password\n")
        #expect(add.status == 0, "\(add)")
        return try ServerProcess(database: database, demo: false, owning: dir)
    }

    @Test func exportImportIntoAnEmptyAccountExportsTheSameBooksAndASecondImportQueuesNothing() throws {
        let demo = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: demo)
        let early = try alice.lib("export")
        #expect(early.status == 1 && early.stderr.contains("run `lib pull` first") && early.stdout.isEmpty, "\(early)")
        // A deletion a pull sees, for --deleted.
        #expect(try alice.lib("pull").status == 0)
        #expect(try alice.lib("edit", "books/b-20", "--delete", "--push").status == 0)
        #expect(try alice.lib("pull").status == 0)
        let lines = try exportedLines(alice, "--deleted")
        #expect(lines.count == 20, "19 books and b-20's deletion: \(lines)")
        let ids = try lines.map { try JSONParser.parse($0)["id"]?.stringValue ?? "" }
        #expect(ids == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } && ids.first == "b-1" && ids[1] == "b-10", "sorted by path: \(ids)")
        #expect(lines[0].hasPrefix(#"{"path":"books/b-1","id":"b-1","fields":{"author":"Jane Austen","copies":1,"tags":["classic","romance"],"title":"Pride and Prejudice","year":1813},"etag":"\"1-"#),
                "fields by name, the ETag last: \(lines[0])")
        #expect(lines.contains(#"{"path":"books/b-20","id":"b-20","deleted":true}"#), "\(lines)")
        let file = alice.home.file("library.ndjson")
        let written = try alice.lib("--json", "export", "--deleted", "-o", file)
        try JSONSchemaValidator.validate(written.stdout, against: "export-file")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == lines.joined(separator: "\n") + "\n")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Another server, and an account on it whose library is empty.
        let other = try emptyServer()
        let dana = try LibHarness()
        #expect(try dana.lib("login", other.baseURL, "--user", "dana", "--password-stdin", stdin: "dana-password\n").status == 0)
        #expect(try dana.lib("pull").status == 0)
        let dry = try dana.lib("import", "--dry-run", file)
        #expect(dry.status == 0 && dry.stdout.hasPrefix("Would queue 19 writes (19 creates, 0 updates, 0 deletes)"), "\(dry)")
        #expect(try pending(dana).pending == 0, "--dry-run queues nothing")
        let imported = try dana.lib("--json", "import", file)
        #expect(imported.status == 0, "\(imported)")
        try JSONSchemaValidator.validate(imported.stdout, against: "import")
        let counts = try JSONParser.parse(imported.stdout)
        #expect(counts["writes"] == .integer(19) && counts["creates"] == .integer(19) && counts["unchanged"] == .integer(1), "\(imported)")
        // Again before the push: the pending writes already make the library match.
        let again = try dana.lib("import", file)
        #expect(again.status == 0 && again.stdout.hasPrefix("Queued 0 writes (0 creates, 0 updates, 0 deletes)"), "\(again)")
        #expect(try pending(dana).pending == 19)
        let push = try dana.lib("push")
        #expect(push.status == 0, "\(push)")
        #expect(try dana.lib("pull").status == 0)
        let copied = try exportedLines(dana)
        #expect(try books(copied) == books(lines), "the same id and fields for every book; only the ETags are the other server's")
        #expect(copied.count == 19)

        // The same file once more, after the push: 0 writes, nothing pending, the server untouched.
        let historyBefore = try serverHistory(other, book: "b-7").count
        let third = try dana.lib("import", file)
        #expect(third.status == 0 && third.stdout.hasPrefix("Queued 0 writes (0 creates, 0 updates, 0 deletes)"), "\(third)")
        #expect(try pending(dana).pending == 0)
        #expect(try dana.lib("push").status == 0)
        #expect(try serverHistory(other, book: "b-7").count == historyBefore)
        #expect(try exportedLines(dana) == copied, "the same bytes: nothing changed on the server")
    }

    @Test func aLineOlderThanTheServerThatChangesAFieldSomeoneChangedBecomesAConflict() throws {
        let server = try startDemoServer()
        let alice = try LibHarness(), bob = try LibHarness()
        try alice.login("alice", to: server)
        try bob.login("bob", to: server)
        #expect(try alice.lib("pull").status == 0)
        let lines = try exportedLines(alice)
        // Bob renames Dune after alice's export; alice's device pulls it.
        #expect(try bob.lib("edit", "books/b-7", "title=Dune (bob)", "--push").status == 0)
        #expect(try alice.lib("pull").status == 0)

        // Her file, edited: Dune renamed against the version she exported
        // (older than the server's now), b-3's copies against the current
        // one, and b-5 deleted.
        let dune = try #require(lines.first { $0.contains(#""id":"b-7""#) })
        let three = try #require(lines.first { $0.contains(#""id":"b-3""#) })
        var threeLine = try #require(try JSONParser.parse(three).objectValue)
        var threeFields = try #require(threeLine["fields"]?.objectValue)
        threeFields["copies"] = .integer(9)
        threeLine["fields"] = .object(threeFields)
        let edited = dune.replacingOccurrences(of: #""title":"Dune""#, with: #""title":"Dune (alice)""#) + "\n"
            + JSONValue.object(threeLine).serialized() + "\n"
            + #"{"path":"books/b-5","id":"b-5","deleted":true}"# + "\n"
        #expect(edited.contains("Dune (alice)") && edited.contains(#""copies":9"#), "\(edited)")
        let imported = try alice.lib("import", "-", stdin: edited)
        #expect(imported.status == 0 && imported.stdout.hasPrefix("Queued 3 writes (0 creates, 2 updates, 1 delete)"), "\(imported)")

        let push = try alice.lib("push")
        #expect(push.status == 3, "a conflict needs attention: \(push)")
        #expect(try pending(alice) == (pending: 0, conflicts: 1))
        let resolve = try alice.lib("--json", "resolve", "books/b-7")
        let fields = try JSONParser.parse(resolve.stdout)["fields"]?.arrayValue ?? []
        let title = fields.first { $0["field"] == .string("title") }
        #expect(title?["mine"] == .string("Dune (alice)") && title?["theirs"] == .string("Dune (bob)") && title?["clash"] == .bool(true),
                "\(resolve)")
        // The server kept bob's title; b-3's change, made against its current version, went through.
        let history = try serverHistory(server, book: "b-7")
        #expect(history.count == 2 && history.last?.document?.contains(#""title":"Dune (bob)""#) == true, "\(history)")
        #expect(try serverHistory(server, book: "b-3").last?.document?.contains(#""copies":9"#) == true)
        #expect(try serverHistory(server, book: "b-5").last.map { $0.document == nil } == true, "the deleted line deleted b-5")
    }

    @Test func aBadFileIsRefusedWholeNamingEachLineAndQueuesNothing() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let good = #"{"path":"books/new-1","id":"new-1","fields":{"title":"Emma"}}"#
        let early = try alice.lib("import", "-", stdin: good + "\n")
        #expect(early.status == 1 && early.stderr.contains("run `lib pull` first"), "\(early)")
        #expect(try alice.lib("pull").status == 0)
        let file = [
            good,
            #"{"path":"books/new-2","id":"new-2","fields":{"title":"Persuasion","year":"1817"}}"#,
            #"{"path":"users/new-3","id":"new-3","fields":{"title":"Sanditon"}}"#,
            "{\"id\":\"new-4\",\"fields\":{\"title\":\"x\"},\"colour\":\"red\"}",
            "not json",
            #"{"path":"books/new-5","fields":{"title":"Lady Susan"}}"#,
            "",
        ].joined(separator: "\n")
        let refused = try alice.lib("import", "-", stdin: file)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("5 lines of standard input are not a book lib import can read"), "\(refused)")
        #expect(refused.stderr.contains("line 2: books/new-2: 'year' must be an integer"), "\(refused)")
        #expect(refused.stderr.contains(#"line 3: "path" must be "books/new-3""#), "\(refused)")
        #expect(refused.stderr.contains("line 4: unknown member 'colour'"), "\(refused)")
        #expect(refused.stderr.contains("line 5: not JSON"), "\(refused)")
        #expect(refused.stderr.contains(#"line 6: no "id""#), "\(refused)")
        #expect(!refused.stderr.contains("line 1:"), "\(refused)")
        #expect(try pending(alice).pending == 0, "nothing queued, not even the good line")
        let json = try alice.lib("--json", "import", "-", stdin: "{}\n")
        #expect(json.status == 2, "\(json)")
        try JSONSchemaValidator.validate(json.stderr, against: "error")
    }
}
