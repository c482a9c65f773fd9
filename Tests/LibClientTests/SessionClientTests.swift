import LibBase
import LibClient
import LibJSON
import LibNet
import Testing

/// `SessionClient`: sign-in, who a token is, sign-out, as typed answers.
@Suite struct SessionClientTests {
    let server = ScriptedTransport()
    func session(token: String? = "t") -> SessionClient {
        SessionClient(api: ServerAPI(transport: server, origin: ScriptedTransport.origin, token: token))
    }

    func failure(_ body: () throws -> Void) -> RequestFailure? {
        do { try body() } catch { return error as? RequestFailure }
        return nil
    }

    @Test func aPasswordBecomesAToken() throws {
        server.on("POST", "/v1/sessions", Reply.json(201, #"{"token":"lbt_1"}"#))
        #expect(try session(token: nil).signIn(user: "alice", password: "pw") == .token("lbt_1"))
        let request = try #require(server.requests.first)
        #expect(try JSONParser.parse(request.body) == ["username": "alice", "password": "pw"])
        #expect(request.headers["Authorization"] == nil)
    }

    @Test func aWrongPasswordIsRefused() throws {
        server.on("POST", "/v1/sessions", Reply.problem(401, "Wrong user name or password"))
        #expect(try session(token: nil).signIn(user: "alice", password: "no") == .refused)
    }

    @Test func aSignInWithoutATokenIsNotTheServers() {
        server.on("POST", "/v1/sessions", Reply.json(201, #"{"token":""}"#))
        guard case .transport(let failure)? = failure({ _ = try session(token: nil).signIn(user: "a", password: "b") }) else {
            Issue.record(); return
        }
        #expect(failure.kind == .notFromLibraryServer(seen: "201 without a token"))
    }

    @Test func aPortalsPageToASignInIsNotTheServers() {
        server.on("POST", "/v1/sessions", Reply.page(200, "text/html", "<html>Sign in to the Wi-Fi</html>"))
        guard case .transport(let failure)? = failure({ _ = try session(token: nil).signIn(user: "a", password: "b") }) else {
            Issue.record(); return
        }
        #expect(failure.kind == .notFromLibraryServer(seen: "200 text/html"))
    }

    @Test func aSignInTheServerRefusesForAReasonIsItsProblem() {
        server.on("POST", "/v1/sessions", Reply.problem(400, "username is required"))
        #expect(failure { _ = try session(token: nil).signIn(user: "", password: "b") }
                == .problem(ServerProblem(request: "POST /v1/sessions", status: 400, detail: "username is required")))
    }

    @Test func theTokensIdentityAndTheServersClock() throws {
        server.on("GET", "/v1/me", Reply.json(200, #"{"id":"u-1","username":"alice","role":"librarian"}"#,
                                              [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")]))
        let (answer, date) = try session().identity()
        #expect(answer == .identity(SessionClient.Identity(userID: "u-1", username: "alice")))
        #expect(date == 784_111_777)
    }

    @Test func anUnknownTokenIsSaid() throws {
        server.on("GET", "/v1/me", Reply.problem(401, "Sign in first"))
        #expect(try session().identity().answer == .unknownToken)
    }

    @Test func anIdentityWithoutAUserIsNotTheServers() {
        server.on("GET", "/v1/me", Reply.json(200, #"{"id":"u-1"}"#))
        guard case .transport(let failure)? = failure({ _ = try session().identity() }) else { Issue.record(); return }
        #expect(failure.kind == .notFromLibraryServer(seen: "200 application/json where a user was expected"))
    }

    @Test func signingOutSaysWhetherTheServerEndedTheSession() {
        server.on("DELETE", "/v1/sessions/current", Reply.page(204, "text/plain", ""))
        #expect(session().signOut())
        let other = ScriptedTransport()
        other.on("DELETE", "/v1/sessions/current") { _ throws(TransportFailure) in
            throw TransportFailure(kind: .connectionRefused, endpoint: ScriptedTransport.origin)
        }
        #expect(!SessionClient(api: ServerAPI(transport: other, origin: ScriptedTransport.origin, token: "t")).signOut())
    }
}
