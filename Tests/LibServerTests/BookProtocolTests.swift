import LibJSON
import Testing
import TestSupport

@Suite struct BookProtocolTests {
    @Test func getGivesTheDocumentAndETagThen304() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let answer = try alice.get("/v1/books/b-7")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/json")
        #expect(answer.json?["title"] == "Dune")
        #expect(answer.json?["author"] == "Frank Herbert")
        let etag = try #require(answer.header("ETag"))
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let again = try alice.get("/v1/books/b-7", headers: [("If-None-Match", etag)])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.header("ETag") == etag)
        let stale = try alice.get("/v1/books/b-7", headers: [("If-None-Match", "\"0-old\"")])
        #expect(stale.status == 200)
    }

    @Test func missingBookIs404AndBadIDIs400() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let missing = try alice.get("/v1/books/b-999")
        #expect(missing.status == 404)
        #expect(missing.problemDetail == "There is no book 'b-999'")
        #expect(try alice.get("/v1/books/b%20x").status == 400)
    }

    @Test func collectionPagesWithNext() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        var ids: [String] = []
        var after: String?
        repeat {
            let answer = try alice.get("/v1/books?limit=7" + (after.map { "&after=\($0)" } ?? ""))
            #expect(answer.status == 200)
            let json = try #require(answer.json)
            let items = try #require(json["items"]?.arrayValue)
            #expect(items.allSatisfy { $0["etag"]?.stringValue?.hasPrefix("\"") == true })
            ids += items.compactMap { $0["id"]?.stringValue }
            after = json["next"]?.stringValue
        } while after != nil
        #expect(ids.count == 20)
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == 20)
        #expect(try alice.get("/v1/books?limit=0").status == 400)
        #expect(try alice.get("/v1/books?limit=abc").status == 400)
    }

    @Test func putWithIfMatchMakesANewVersion() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        let answer = try alice.put("b-7", #"{"title":"Dune","author":"Frank Herbert","year":1965,"copies":5,"tags":["sf"]}"#, ifMatch: etag)
        #expect(answer.status == 200)
        let newETag = try #require(answer.header("ETag"))
        #expect(newETag != etag)
        #expect(answer.json?["copies"] == .integer(5))
        #expect(answer.json?["id"] == "b-7")
        #expect(try alice.etag(of: "b-7") == newETag)
        let history = try demo.history("b-7", as: alice)
        #expect(history.count == 2)
        #expect(history.last?["updated_by"] == .string(alice.userID))
        #expect(history.last?["updated_by_name"] == "alice")
        #expect(history.first?["updated_by_name"] == .null, "the demo data has no user")
        #expect(history.last?["version"] == .integer(2))
        #expect(history.last?["etag"] == .string(newETag))
    }

    @Test func staleIfMatchIs412WithTheCurrentDocumentAndETag() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let bob = try demo.signIn("bob")
        let base = try alice.etag(of: "b-7")
        let bobs = try bob.put("b-7", #"{"title":"Dune (bob)"}"#, ifMatch: base)
        #expect(bobs.status == 200)
        let answer = try alice.put("b-7", #"{"title":"Dune (alice)"}"#, ifMatch: base)
        #expect(answer.status == 412)
        #expect(answer.header("ETag") == bobs.header("ETag"))
        #expect(answer.json?["current"]?["title"] == "Dune (bob)")
        #expect(answer.json?["current_etag"] == bobs.header("ETag").map { .string($0) })
        #expect(try demo.history("b-7", as: alice).count == 2, "the 412 wrote nothing")
    }

    @Test func writesWithoutAPreconditionAre428AndWithoutAKey400() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let noPrecondition = try alice.put("b-7", #"{"title":"x"}"#)
        #expect(noPrecondition.status == 428)
        let noKey = try alice.put("b-7", #"{"title":"x"}"#, ifMatch: try alice.etag(of: "b-7"), key: nil)
        #expect(noKey.status == 400)
        #expect(noKey.problemDetail.contains("Idempotency-Key"))
        let deleteWithout = try alice.delete("b-7", ifMatch: nil)
        #expect(deleteWithout.status == 428)
        #expect(try demo.history("b-7", as: alice).count == 1)
    }

    @Test(arguments: [
        (#"{"title":"Dune","colour":"red"}"#, "colour", "'colour' is not a field of a book"),
        (#"{"title":"Dune","year":"1965"}"#, "year", "'year' must be an integer, not string"),
        (#"{"title":"Dune","year":1965.5}"#, "year", "'year' must be an integer, not number"),
        (#"{"title":""}"#, "title", "'title' must be 1 to 500 characters long (it has 0)"),
        (#"{"author":"Frank Herbert"}"#, "title", "'title' is required"),
        (#"{"title":"Dune","copies":-1}"#, "copies", "'copies' must be 0 or more"),
        (#"{"title":"Dune","tags":["sf",3]}"#, "tags", "'tags' must be an array of strings (item 1 is integer)"),
        (#"{"title":"Dune","id":"b-8"}"#, "id", "'id' must be \"b-7\", the id in the path"),
        (#"["title"]"#, "", "The body must be a JSON object, not array"),
    ])
    func invalidDocumentsAre422NamingTheField(body: String, field: String, message: String) throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let answer = try alice.put("b-7", body, ifMatch: try alice.etag(of: "b-7"))
        #expect(answer.status == 422)
        #expect(answer.header("Content-Type") == "application/problem+json")
        #expect(answer.problemDetail.contains(message), "\(answer.problemDetail)")
        if !field.isEmpty {
            #expect(answer.json?["errors"]?.arrayValue?.contains { $0["field"] == .string(field) } == true)
        }
        #expect(try demo.history("b-7", as: alice).count == 1)
    }

    @Test func invalidJSONIs400() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let answer = try alice.put("b-7", #"{"title": "Dune",}"#, ifMatch: try alice.etag(of: "b-7"))
        #expect(answer.status == 400)
        #expect(answer.problemDetail == "The body is not valid JSON: expected a quoted key at line 1, column 18")
    }

    @Test func readersMayNotWrite() throws {
        let demo = try DemoServer()
        let carol = try demo.signIn("carol")
        #expect(try carol.get("/v1/books/b-7").status == 200)
        let answer = try carol.put("b-7", #"{"title":"x"}"#, ifMatch: try carol.etag(of: "b-7"))
        #expect(answer.status == 403)
        #expect(answer.problemDetail == "carol is a reader: only librarians may change books")
    }

    @Test func createWithIfNoneMatchStarThen412() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let created = try alice.put("b-new", #"{"title":"New Book","year":2026}"#, create: true)
        #expect(created.status == 201)
        #expect(created.header("ETag") != nil)
        #expect(try alice.get("/v1/books/b-new").json?["title"] == "New Book")
        let again = try alice.put("b-new", #"{"title":"Other"}"#, create: true)
        #expect(again.status == 412)
        #expect(again.json?["current"]?["title"] == "New Book")
    }

    @Test func deleteWithIfMatch() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-3")
        #expect(try alice.delete("b-3", ifMatch: "\"1-stale\"").status == 412)
        let deleted = try alice.delete("b-3", ifMatch: etag)
        #expect(deleted.status == 204)
        #expect(try alice.get("/v1/books/b-3").status == 404)
        #expect(try alice.delete("b-3", ifMatch: etag).status == 404)
        let history = try demo.history("b-3", as: alice)
        #expect(history.count == 2)
        #expect(history.last?["document"] == .null)
        let stalePut = try alice.put("b-3", #"{"title":"Back"}"#, ifMatch: etag)
        #expect(stalePut.status == 412)
        #expect(stalePut.json?["current"] == .null)
        #expect(try alice.put("b-3", #"{"title":"Back"}"#, create: true).status == 201)
    }
}
