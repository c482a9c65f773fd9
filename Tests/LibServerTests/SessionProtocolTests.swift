import Foundation
import LibJSON
import Testing
import TestSupport

@Suite struct SessionProtocolTests {
    @Test func loginGivesATokenAndTheAccount() throws {
        let demo = try DemoServer()
        let client = try demo.client()
        let answer = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                        body: #"{"username":"alice","password":"alice-demo"}"#)
        #expect(answer.status == 201)
        let json = try #require(answer.json)
        #expect(json["token"]?.stringValue?.hasPrefix("lbt_") == true)
        #expect(json["account"]?["username"] == "alice")
        #expect(json["account"]?["role"] == "librarian")
        let token = try #require(json["token"]?.stringValue)
        let me = try client.request("GET", "/v1/me", headers: [("Authorization", "Bearer \(token)")])
        #expect(me.status == 200)
        #expect(me.json?["id"] == json["account"]?["id"])
        #expect(me.json?["username"] == "alice")
    }

    @Test func wrongPasswordAndUnknownUserAre401() throws {
        let demo = try DemoServer()
        let client = try demo.client()
        for body in [#"{"username":"alice","password":"nope"}"#, #"{"username":"mallory","password":"x"}"#] {
            let answer = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")], body: body)
            #expect(answer.status == 401)
            #expect(answer.header("Content-Type") == "application/problem+json")
            #expect(answer.problemDetail == "Wrong user name or password")
        }
        let malformed = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")], body: "{")
        #expect(malformed.status == 400)
        #expect(malformed.problemDetail.hasPrefix("The body is not valid JSON"))
    }

    @Test func everyRouteButLoginNeedsAToken() throws {
        let demo = try DemoServer()
        let client = try demo.client()
        for (method, target) in [("GET", "/v1/me"), ("GET", "/v1/books"), ("GET", "/v1/books/b-7"),
                                 ("GET", "/v1/books/b-7/history"), ("PUT", "/v1/books/b-7"), ("DELETE", "/v1/books/b-7"),
                                 ("DELETE", "/v1/sessions/current")] {
            let answer = try client.request(method, target)
            #expect(answer.status == 401, "\(method) \(target)")
            #expect(answer.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        }
        let forged = try client.request("GET", "/v1/me", headers: [("Authorization", "Bearer lbt_forged")])
        #expect(forged.status == 401)
    }

    @Test func revokedTokenIs401Afterwards() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let other = try demo.signIn("alice")
        let revoke = try alice.client.request("DELETE", "/v1/sessions/current", headers: [("Authorization", "Bearer \(alice.token)")])
        #expect(revoke.status == 204)
        let after = try alice.get("/v1/me")
        #expect(after.status == 401)
        #expect(after.problemDetail == "The token is not valid (unknown or revoked): sign in again")
        #expect(try other.get("/v1/me").status == 200, "only that session is revoked")
    }

    @Test func tokensAreStoredOnlyHashed() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        _ = try alice.put("b-7", #"{"title":"Dune"}"#, ifMatch: try alice.etag(of: "b-7"))
        demo.server.stop()
        let contents = try CommandRunner.run("/usr/bin/grep", ["-rc", alice.token, demo.directory.path])
        #expect(!contents.stdout.contains(":1"), "the token was found on disk: \(contents.stdout)")
        let tokens = try TestDatabase.query(demo.server.databasePath, "SELECT token_hash FROM sessions")
        #expect(!tokens.isEmpty && !tokens.contains(alice.token))
        let passwords = try TestDatabase.query(demo.server.databasePath, "SELECT password_hash FROM users")
        #expect(passwords.split(separator: "\n").allSatisfy { $0.hasPrefix("$argon2id$") })
    }

    @Test func unknownRoutesAndMethods() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let missing = try alice.get("/v2/nothing")
        #expect(missing.status == 404)
        let wrongMethod = try alice.client.request("POST", "/v1/books/b-7", headers: [("Authorization", "Bearer \(alice.token)")])
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow") == "GET, PUT, DELETE")
        let faults = try alice.get("/_test/faults")
        #expect(faults.status == 404, "fault control is off unless --fault-control is given")
    }
}
