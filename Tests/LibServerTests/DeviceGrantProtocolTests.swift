import Foundation
import LibJSON
import Testing
import TestSupport

/// Device sign-in (RFC 8628) against a real lib-server: the code pair, the
/// four errors of a poll (authorization_pending, slow_down, access_denied,
/// expired_token), approval with a token or at the page, and the flag that
/// turns it off. The server's clock is moved (`PUT /_test/clock`) instead
/// of waiting for intervals and expiry.
@Suite struct DeviceGrantProtocolTests {
    let demo: DemoServer

    init() throws {
        demo = try DemoServer(extraArguments: ["--fault-control"])
    }

    static let form = ("Content-Type", "application/x-www-form-urlencoded")

    func startGrant() throws -> (deviceCode: String, userCode: String) {
        let answer = try demo.client().request("POST", "/v1/device/code", headers: [Self.form], body: "client_id=lib")
        try #require(answer.status == 200, "\(answer.status) \(answer.text)")
        let json = try #require(answer.json)
        return (try #require(json["device_code"]?.stringValue), try #require(json["user_code"]?.stringValue))
    }

    func poll(_ deviceCode: String) throws -> HTTPTestResponse {
        try demo.client().request("POST", "/v1/device/token", headers: [Self.form],
                                  body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=\(deviceCode)")
    }

    func pollError(_ deviceCode: String) throws -> String? {
        let answer = try poll(deviceCode)
        #expect(answer.status == 400 || answer.status == 200)
        return answer.json?["error"]?.stringValue
    }

    func moveClock(_ seconds: Int) throws {
        #expect(try demo.client().request("PUT", "/_test/clock", body: String(seconds)).status == 200)
    }

    func approve(_ userCode: String, as session: SignedInClient) throws -> HTTPTestResponse {
        try session.client.request("POST", "/v1/device/approve",
                                   headers: [("Authorization", "Bearer \(session.token)"), ("Content-Type", "application/json")],
                                   body: #"{"user_code":"\#(userCode)"}"#)
    }

    func page(_ fields: String, headers: [(String, String)] = []) throws -> HTTPTestResponse {
        try demo.client().request("POST", "/device", headers: [Self.form] + headers, body: fields)
    }

    @Test func aCodePairHasRFC8628sFieldsAndOnlyItsHashIsStored() throws {
        let answer = try demo.client().request("POST", "/v1/device/code", headers: [("Content-Type", "application/json")],
                                               body: #"{"client_id":"lib"}"#)
        #expect(answer.status == 200)
        #expect(answer.header("Cache-Control") == "no-store")
        let json = try #require(answer.json)
        let userCode = try #require(json["user_code"]?.stringValue)
        #expect(userCode.range(of: "^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$", options: .regularExpression) != nil, "\(userCode)")
        #expect(json["verification_uri"]?.stringValue == "http://127.0.0.1:\(demo.server.port)/device")
        #expect(json["verification_uri_complete"]?.stringValue == "http://127.0.0.1:\(demo.server.port)/device?code=\(userCode)")
        #expect(json["expires_in"] == 900)
        #expect(json["interval"] == 5)
        let deviceCode = try #require(json["device_code"]?.stringValue)
        #expect(deviceCode.count >= 40)
        let stored = try TestDatabase.query(demo.server.databasePath, "SELECT device_code_hash, user_code FROM device_grants")
        #expect(stored.contains(userCode) && !stored.contains(deviceCode))
    }

    @Test func pollingTooSoonIsSlowDownAndAddsFiveSecondsEachTime() throws {
        let grant = try startGrant()
        #expect(try pollError(grant.deviceCode) == "authorization_pending")
        let soon = try poll(grant.deviceCode)
        #expect(soon.status == 400 && soon.json?["error"] == "slow_down" && soon.json?["interval"] == 10, "\(soon.text)")
        #expect(soon.header("Cache-Control") == "no-store")
        // 6 s later is within the new 10 s: slow down again, to 15.
        try moveClock(6)
        let again = try poll(grant.deviceCode)
        #expect(again.json?["error"] == "slow_down" && again.json?["interval"] == 15, "\(again.text)")
        try moveClock(15)
        #expect(try pollError(grant.deviceCode) == "authorization_pending")
    }

    @Test func anApprovedCodeGivesOneSessionOnce() throws {
        let grant = try startGrant()
        let alice = try demo.signIn("alice")
        let approved = try approve(grant.userCode.lowercased().replacingOccurrences(of: "-", with: ""), as: alice)
        #expect(approved.status == 200, "\(approved.text)")
        #expect(approved.json?["account"]?["username"] == "alice")
        let answer = try poll(grant.deviceCode)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.json?["token_type"] == "Bearer")
        #expect(answer.json?["account"]?["username"] == "alice")
        let token = try #require(answer.json?["access_token"]?.stringValue)
        let me = try demo.client().request("GET", "/v1/me", headers: [("Authorization", "Bearer \(token)")])
        #expect(me.status == 200 && me.json?["username"] == "alice")
        try moveClock(10)
        #expect(try pollError(grant.deviceCode) == "invalid_grant", "a device code gives one session")
        let twice = try approve(grant.userCode, as: alice)
        #expect(twice.status == 409 && twice.problemDetail.contains("approved or denied already"), "\(twice.text)")
    }

    @Test func aDeniedCodeIsAccessDenied() throws {
        let grant = try startGrant()
        let denied = try page("user_code=\(grant.userCode)&action=deny")
        #expect(denied.status == 200 && denied.text.contains("data-result=\"denied\""), "\(denied.text)")
        #expect(try pollError(grant.deviceCode) == "access_denied")
        let alice = try demo.signIn("alice")
        #expect(try approve(grant.userCode, as: alice).status == 409)
        try moveClock(10)
        #expect(try pollError(grant.deviceCode) == "access_denied")
    }

    @Test func after15MinutesTheCodeIsExpiredToken() throws {
        let grant = try startGrant()
        try moveClock(899)
        #expect(try pollError(grant.deviceCode) == "authorization_pending")
        try moveClock(2)
        #expect(try pollError(grant.deviceCode) == "expired_token")
        let alice = try demo.signIn("alice")
        let late = try approve(grant.userCode, as: alice)
        #expect(late.status == 410 && late.problemDetail.contains("expired"), "\(late.text)")
        let page = try page("user_code=\(grant.userCode)&username=alice&password=alice-demo&action=approve")
        #expect(page.status == 400 && page.text.contains("expired"))
        try moveClock(10)
        #expect(try pollError(grant.deviceCode) == "expired_token")
        #expect(try pollError("lbd_never-issued") == "invalid_grant")
    }

    @Test func thePageApprovesWithTheRightPasswordOnly() throws {
        let grant = try startGrant()
        let shown = try demo.client().request("GET", "/device?code=\(grant.userCode.lowercased())")
        #expect(shown.status == 200 && shown.header("Content-Type") == "text/html; charset=utf-8")
        #expect(shown.text.contains("value=\"\(grant.userCode)\""), "the code from the link is filled in")
        let policy = try #require(shown.header("Content-Security-Policy"))
        #expect(policy.hasPrefix("default-src 'none'") && policy.contains("form-action 'self'"))

        let wrong = try page("user_code=\(grant.userCode)&username=alice&password=nope&action=approve")
        #expect(wrong.status == 401 && wrong.text.contains("Wrong user name or password"))
        #expect(try pollError(grant.deviceCode) == "authorization_pending")
        let elsewhere = try page("user_code=\(grant.userCode)&username=alice&password=alice-demo&action=approve",
                                 headers: [("Origin", "https://evil.example")])
        #expect(elsewhere.status == 403)
        let right = try page("user_code=\(grant.userCode.lowercased())&username=alice&password=alice-demo&action=approve",
                             headers: [("Origin", "http://127.0.0.1:\(demo.server.port)")])
        #expect(right.status == 200 && right.text.contains("data-result=\"approved\""), "\(right.text)")
        try moveClock(10)
        #expect(try poll(grant.deviceCode).json?["account"]?["username"] == "alice")
    }

    @Test func unknownAndMalformedCodesAreRefusedByName() throws {
        let alice = try demo.signIn("alice")
        let unknown = try approve("BCDF-GHJK", as: alice)
        #expect(unknown.status == 404 && unknown.problemDetail.hasPrefix("No device waits for the code BCDF-GHJK"), "\(unknown.text)")
        let notACode = try approve("AEIO-U123", as: alice)
        #expect(notACode.status == 404)
        let unsigned = try demo.client().request("POST", "/v1/device/approve", headers: [("Content-Type", "application/json")],
                                                 body: #"{"user_code":"BCDF-GHJK"}"#)
        #expect(unsigned.status == 401)
        let noCode = try demo.client().request("POST", "/v1/device/token", headers: [Self.form], body: "client_id=lib")
        #expect(noCode.status == 400 && noCode.json?["error"] == "invalid_request")
        let otherGrant = try demo.client().request("POST", "/v1/device/token", headers: [Self.form], body: "grant_type=password&device_code=x")
        #expect(otherGrant.json?["error"] == "unsupported_grant_type")
    }

    @Test func noDeviceGrantTurnsEveryPathOff() throws {
        let off = try DemoServer(extraArguments: ["--no-device-grant"])
        for (method, path) in [("POST", "/v1/device/code"), ("POST", "/v1/device/token"), ("POST", "/v1/device/approve"),
                               ("GET", "/device"), ("POST", "/device")] {
            let answer = try off.client().request(method, path, headers: [Self.form], body: "client_id=lib")
            #expect(answer.status == 404, "\(method) \(path): \(answer.status)")
        }
    }
}
