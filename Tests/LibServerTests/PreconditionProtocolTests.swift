import LibJSON
import Testing
import TestSupport

/// RFC 9110 §13.2.2 on the library's routes: If-Match first (strong), then
/// If-None-Match (weak), 304 for GET and 412 for writes.
@Suite struct PreconditionProtocolTests {
    @Test func getAnswers304ToAWeakOrStarIfNoneMatchAnd412ToAFailedIfMatch() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        let cases: [([(String, String)], Int)] = [
            ([("If-None-Match", etag)], 304),
            ([("If-None-Match", "W/" + etag)], 304),
            ([("If-None-Match", "\"0-other\", " + etag)], 304),
            ([("If-None-Match", "*")], 304),
            ([("If-None-Match", "\"0-other\"")], 200),
            ([("If-Match", etag)], 200),
            ([("If-Match", "*")], 200),
            ([("If-Match", "W/" + etag)], 412),
            ([("If-Match", "\"0-other\"")], 412),
            ([("If-Match", "\"0-other\""), ("If-None-Match", etag)], 412),
            ([("If-Match", "not-a-tag")], 400),
        ]
        for (headers, status) in cases {
            let answer = try alice.get("/v1/books/b-7", headers: headers)
            #expect(answer.status == status, "\(headers)")
            if status == 304 { #expect(answer.header("ETag") == etag && answer.body.isEmpty) }
        }
    }

    @Test(arguments: [
        ("current", "*", 412),
        ("*", "*", 412),
        ("weak current", nil, 412),
        ("*", nil, 200),
        ("current", "\"0-other\"", 200),
        ("current", "current", 412),
        ("current", "weak current", 412),
        ("\"0-other\"", nil, 412),
    ] as [(String, String?, Int)])
    func putOnAnExistingBookFollowsTheTable(ifMatch: String, ifNoneMatch: String?, status: Int) throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let etag = try alice.etag(of: "b-7")
        func resolve(_ text: String) -> String {
            text == "current" ? etag : text == "weak current" ? "W/" + etag : text
        }
        var headers = [("If-Match", resolve(ifMatch))]
        if let ifNoneMatch { headers.append(("If-None-Match", resolve(ifNoneMatch))) }
        let answer = try alice.put("b-7", #"{"title":"Changed"}"#, extraHeaders: headers)
        #expect(answer.status == status, "\(answer.text)")
        #expect(try demo.history("b-7", as: alice).count == (status == 200 ? 2 : 1))
        if status == 412 {
            #expect(answer.json?["current_etag"] == .string(etag))
            if ifNoneMatch != nil && ifMatch != "\"0-other\"" && ifMatch != "weak current" {
                #expect(answer.problemDetail == "Book 'b-7' already exists (version \(etag)); update it with If-Match instead")
            }
        }
    }

    @Test func aBookThatNeverExistedIs412SayingSoAndCreatedWithIfNoneMatchStar() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        for ifMatch in ["\"1-guess\"", "*"] {
            let answer = try alice.put("b-never", #"{"title":"X"}"#, ifMatch: ifMatch)
            #expect(answer.status == 412)
            #expect(answer.problemDetail == "There is no book 'b-never' yet; create it with If-None-Match: *")
        }
        let deleted = try alice.delete("b-3", ifMatch: try alice.etag(of: "b-3"))
        #expect(deleted.status == 204)
        #expect(try alice.put("b-3", #"{"title":"X"}"#, ifMatch: "*").problemDetail == "Book 'b-3' no longer exists: it was deleted")
        #expect(try alice.put("b-never", #"{"title":"X"}"#, create: true).status == 201)
    }

    @Test func aWriteMustPinAVersionAndSpellItsTagsRight() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        #expect(try alice.put("b-7", #"{"title":"X"}"#, extraHeaders: [("If-None-Match", "\"0-other\"")]).status == 428)
        let malformed = try alice.put("b-7", #"{"title":"X"}"#, ifMatch: "2-unquoted")
        #expect(malformed.status == 400)
        #expect(malformed.problemDetail == "If-Match must be * or a list of entity tags such as \"3-9f2c1a07\"")
        #expect(try alice.delete("b-7", ifMatch: nil).status == 428)
    }
}
