import Foundation
import Testing
import TestSupport

/// One book schema, served: lib-server validates with the schema it serves
/// at `GET /v1/schemas/book` (`--book-schema FILE` for another one), and lib
/// checks edits against the schema its server served, with no change to lib.
@Suite struct ServedBookSchemaTests {
    /// The built-in rules plus `isbn`, a string.
    static let schemaWithISBN = #"""
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "type": "object",
          "properties": {
            "id": {"type": "string"},
            "title": {"type": "string", "minLength": 1, "maxLength": 500},
            "author": {"type": "string"},
            "year": {"type": "integer"},
            "copies": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}},
            "isbn": {"type": "string"}
          },
          "required": ["title"],
          "additionalProperties": false
        }
        """#

    @Test func aServerThatAddsISBNGetsItFromLibWithNoChangeToLib() throws {
        let files = try TemporaryDirectory("lib-e2e-schema")
        try Self.schemaWithISBN.write(toFile: files.file("book.schema.json"), atomically: true, encoding: .utf8)
        let server = try startDemoServer(arguments: ["--book-schema", files.file("book.schema.json")])
        let alice = try LibHarness()
        try alice.login("alice", to: server)

        let token = try keyringToken(server: server, user: "alice")
        let served = try HTTPTestClient(port: server.port).request("GET", "/v1/schemas/book", headers: [("Authorization", "Bearer \(token)")])
        #expect(served.status == 200 && served.text == Self.schemaWithISBN, "the very file: \(served.text)")
        #expect(served.header("Content-Type") == "application/schema+json")
        let anonymous = try HTTPTestClient(port: server.port).request("GET", "/v1/schemas/book")
        #expect(anonymous.status == 401)

        let edit = try alice.lib("edit", "books/b-7", "isbn=9780441013593")
        #expect(edit.status == 0, "\(edit)")
        let wrongType = try alice.lib("edit", "books/b-7", "isbn:=42")
        #expect(wrongType.status == 1, "\(wrongType)")
        #expect(wrongType.stderr == "lib: books/b-7 was not saved: 'isbn' must be a string, not integer.\n", "\(wrongType)")
        let unknown = try alice.lib("edit", "books/b-7", "isbm=1")
        #expect(unknown.stderr.contains("'isbm' is not a field of a book (did you mean 'isbn'?); the fields are id, title, author, year, copies, tags, isbn"), "\(unknown)")
        let fields = try alice.lib("__complete", "fields", "is")
        #expect(fields.stdout == "isbn=\nisbn:=\n", "\(fields)")

        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("\"isbn\":\"9780441013593\"") == true)

        // Offline, the schema the server served still applies.
        server.stop()
        let offline = try alice.lib("edit", "books/b-7", "isbn=0441013597")
        #expect(offline.status == 0, "\(offline)")
        _ = files
    }

    @Test func theBuiltInSchemaIsServedAndRefusesISBN() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let token = try keyringToken(server: server, user: "alice")
        let served = try HTTPTestClient(port: server.port).request("GET", "/v1/schemas/book", headers: [("Authorization", "Bearer \(token)")])
        #expect(served.status == 200 && served.text.contains("\"https://json-schema.org/draft/2020-12/schema\""), "\(served.text)")
        let etag = served.header("ETag") ?? ""
        let again = try HTTPTestClient(port: server.port).request("GET", "/v1/schemas/book", headers: [("Authorization", "Bearer \(token)"), ("If-None-Match", etag)])
        #expect(again.status == 304)

        let edit = try alice.lib("edit", "books/b-7", "isbn=9780441013593")
        #expect(edit.status == 1, "\(edit)")
        #expect(edit.stderr.contains("'isbn' is not a field of a book"), "\(edit)")
    }

    @Test func aSchemaTheServerCannotApplyStopsItBeforeItListens() throws {
        let files = try TemporaryDirectory("lib-e2e-schema")
        try #"{"type":"object","properties":{"isbn":{"type":"string","pattern":"^[0-9]+$"}}}"#
            .write(toFile: files.file("bad.json"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(BuiltProducts.path("lib-server"), ["--db", files.file("db.sqlite"), "--listen", "127.0.0.1:0", "--book-schema", files.file("bad.json")])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("lib-server: --book-schema '\(files.file("bad.json"))': #/properties/isbn/pattern: the keyword 'pattern' is not supported"), "\(result)")
    }
}
