import Foundation
import Glibc
import LibJSON
import Testing
import TestSupport

/// A server (or anyone on a plain-http path) that sends names and text
/// meant to leave lib's directories or to act on the user's terminal
/// (issue 23).
@Suite struct HostileServerTests {
    /// A stand-in for a library server that signs anyone in as `username`.
    private func standIn(username: String) throws -> ScriptedPeer {
        try ScriptedPeer { _, request in
            let line = request.prefix { $0 != "\r" }
            let (status, body): (String, JSONValue)
            if line.hasPrefix("POST /v1/sessions") {
                status = "201 Created"
                body = ["token": "t-hostile", "account": ["id": "u-1", "username": .string(username), "role": "librarian"]]
            } else if line.hasPrefix("GET /v1/me") {
                status = "200 OK"
                body = ["id": "u-1", "username": .string(username), "role": "librarian"]
            } else if line.hasPrefix("DELETE /v1/sessions/current") {
                return .send(Array("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n".utf8))
            } else {
                status = "404 Not Found"
                body = ["title": "Not Found", "status": 404]
            }
            let text = body.serialized()
            return .send(Array("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)".utf8))
        }
    }

    @Test func aUserNameThatBreaksTheServersRuleIsRefusedBeforeAnyFileIsMade() throws {
        let outside = "escaped-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let names = ["../x", "a/b", "\u{1B}]0;owned\u{07}x", "%F{red}x", "../../../\(outside)", ".hidden", String(repeating: "a", count: 65)]
        for name in names {
            let lib = try LibHarness()
            let peer = try standIn(username: name)
            let login = try lib.lib("login", peer.url(), "--user", "alice", "--password-stdin", stdin: "secret\n")
            #expect(login.status == 1, "\(name.debugDescription): \(login)")
            #expect(login.stderr.contains("which is not a valid user name (1 to 64 letters, digits, '.', '_' or '-', not starting with '.'): not signed in"),
                    "\(name.debugDescription): \(login)")
            #expect(!login.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "no raw escape: \(login)")
            if name.hasPrefix("\u{1B}") { #expect(login.stderr.contains("\\u001b]0;owned\\u0007x"), "\(login)") }
            #expect(lib.files().isEmpty, "nothing made in LIB_HOME for \(name.debugDescription): \(lib.home.listing())")
            let parent = (lib.home.path as NSString).deletingLastPathComponent
            let strays = try FileManager.default.contentsOfDirectory(atPath: parent).filter { $0.hasPrefix(outside) }
            #expect(strays.isEmpty, "nothing made outside LIB_HOME: \(strays)")
            let accounts = try lib.lib("switch")
            #expect(accounts.status == 0 && accounts.stderr.contains("No accounts"), "\(accounts)")
            // The session the stand-in gave is handed back.
            #expect(peer.receivedRequests.contains { $0.hasPrefix("DELETE /v1/sessions/current") }, "\(peer.receivedRequests)")
        }
    }

    @Test func aValidUserNameStillSignsIn() throws {
        let lib = try LibHarness()
        let peer = try standIn(username: "a.b_c-9")
        let login = try lib.lib("login", peer.url(), "--user", "a.b_c-9", "--password-stdin", stdin: "secret\n")
        #expect(login.status == 0, "\(login)")
        #expect(login.stdout.contains("as a.b_c-9 (account a.b_c-9@127.0.0.1:\(peer.port))"), "\(login)")
        _ = try lib.lib("logout", "--discard", "--yes")
    }

    @Test func aLibHomeOthersCanChangeIsRefused() throws {
        let lib = try LibHarness()
        chmod(lib.home.path, 0o777)
        let status = try lib.lib("status")
        #expect(status.status == 1, "\(status)")
        #expect(status.stderr.contains("LIB_HOME (\(lib.home.path)) can be changed by other users (mode 777): run `chmod go-w \(lib.home.path)`"),
                "\(status)")
        chmod(lib.home.path, 0o700)
        let owned = try lib.lib("status")
        #expect(owned.status == 0 || owned.status == 4, "\(owned)")
        #expect(!owned.stderr.contains("other users"), "\(owned)")
        if getuid() == 0 {
            chown(lib.home.path, 65534, 65534)
            let foreign = try lib.lib("status")
            #expect(foreign.status == 1 && foreign.stderr.contains("belongs to another user (uid 65534)"), "\(foreign)")
            chown(lib.home.path, 0, 0)
        }
    }

    @Test func aSymlinkPlantedForAnAccountIsNotFollowed() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        let elsewhere = try TemporaryDirectory("lib-e2e-elsewhere")
        let account = lib.account("alice", on: server)
        try FileManager.default.createDirectory(atPath: lib.home.path + "/data/accounts", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: lib.home.path + "/data/accounts/\(account)", withDestinationPath: elsewhere.path)
        let login = try lib.lib("login", server.baseURL, "--user", "alice", "--password-stdin", stdin: "alice-demo\n")
        #expect(login.status == 1, "\(login)")
        #expect(login.stderr.contains("it is not a directory (a symbolic link?)"), "\(login)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty, "nothing made through the link")
    }
}

/// Titles, authors and tags holding what a terminal obeys: every human
/// output shows them escaped (issue 23).
@Suite struct HostileTextTests {
    /// A clipboard write, a window title, a link, a screen clear, a C1 CSI,
    /// NEL and a right-to-left override.
    static let hostileTitle = "A\u{1B}]52;c;aGk=\u{07}B\u{1B}]0;owned\u{07}C\u{1B}]8;;http://x/\u{1B}\\D\u{1B}[2JE\u{9B}2JF\u{202E}G"

    /// Whether the text holds a character a terminal would act on.
    static func hasRawControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { s in
            s.value == 0x1B || s.value == 0x07 || (0x80...0x9F).contains(s.value) || s.value == 0x202E || s.value == 0x2066
        }
    }

    @Test func getOnATerminalShowsServerTextEscaped() throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        let edit = try alice.lib("edit", "books/b-7", "title=\(Self.hostileTitle)", "author=\u{85}Frank\u{2066}",
                                 "tags:=[\"\\u001b[31mred\", \"plain\"]")
        #expect(edit.status == 0, "\(edit)")
        #expect(try alice.lib("push").status == 0)

        let bob = try LibHarness()
        try bob.login("bob", to: server)
        for arguments in ["get books", "get books/b-7", "get books/b-7 --offline", "get books --offline"] {
            let shown = try bob.onTerminal(arguments, environment: ["NO_COLOR": "1", "PAGER": "cat"])
            #expect(shown.status == 0, "\(arguments): \(shown)")
            #expect(!Self.hasRawControl(shown.stdout), "\(arguments) printed a raw control: \(shown.stdout.debugDescription)")
            #expect(shown.stdout.contains("A\\u001b]52;c;aGk=\\u0007B"), "\(arguments): \(shown.stdout.debugDescription)")
        }
        let document = try bob.onTerminal("get books/b-7", environment: ["NO_COLOR": "1"])
        #expect(document.stdout.contains("\\u0085Frank\\u2066"), "\(document.stdout.debugDescription)")
        #expect(document.stdout.contains("\\u001b[31mred, plain"), "\(document.stdout.debugDescription)")
        #expect(document.stdout.contains("E\\u009b2JF\\u202eG"), "\(document.stdout.debugDescription)")

        // JSON (in a pipe) carries the same text as \u escapes, and reads back as the title.
        let json = try bob.lib("get", "books/b-7")
        #expect(json.status == 0 && !Self.hasRawControl(json.stdout), "\(json.stdout.debugDescription)")
        #expect(try JSONParser.parse(json.stdout)["title"]?.stringValue == Self.hostileTitle)
    }

    /// A server's problem detail, kept with a rejected write: status,
    /// resolve and diff show it escaped (push only counts it); status --json carries
    /// it as \u escapes. In v1 the detail is a PUT's answer; in v2 a batch
    /// item's.
    @Test(arguments: ["v1", "v2"])
    func aProblemDetailFromTheServerIsShownEscaped(wire: String) throws {
        let server = try startDemoServer()
        let alice = try LibHarness()
        try alice.login("alice", to: server)
        #expect(try alice.lib("get", "books/b-7").status == 0)
        #expect(try alice.lib("edit", "books/b-7", "title=Mine").status == 0)
        let port = UInt16(server.port)
        server.stop()
        let detail = "Refused\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}\u{202E}!"
        let problem = JSONValue.object(JSONObject([("type", "about:blank"), ("title", "Unprocessable Content"), ("status", 422),
                                                   ("detail", .string(detail))]))
        let peer = try ScriptedPeer(port: port) { _, request in
            func answer(_ status: String, _ type: String, _ body: String, _ headers: String = "") -> ScriptedPeer.Reply {
                .send(Array("HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\n\(headers)Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
            }
            if request.hasPrefix("GET /v2/capabilities ") {
                return wire == "v1"
                    ? answer("404 Not Found", "application/problem+json", #"{"type":"about:blank","title":"Not Found","status":404}"#)
                    : answer("200 OK", "application/json",
                             #"{"protocols":["v1","v2"],"writes":{"path":"/v2/writes","max_items":1000,"max_bytes":1048576,"field_preconditions":true}}"#)
            }
            if request.hasPrefix("POST /v2/writes ") {
                let batch = try? JSONParser.parse(String(request[request.range(of: "\r\n\r\n")!.upperBound...]))
                let results = (batch?["writes"]?.arrayValue ?? []).map { item in
                    JSONValue.object(JSONObject([("key", item["key"] ?? .null), ("status", 422), ("problem", problem)]))
                }
                return answer("200 OK", "application/json", JSONValue.object(JSONObject([("results", .array(results))])).serialized())
            }
            let key = request.split(separator: "\r\n").first { $0.lowercased().hasPrefix("idempotency-key:") }
                .map { String($0.dropFirst("idempotency-key:".count)).trimmingCharacters(in: .whitespaces) } ?? ""
            return answer("422 Unprocessable Content", "application/problem+json", problem.serialized(), "Idempotency-Key: \(key)\r\n")
        }
        let shown = "Refused\\u001b]0;owned\\u0007\\u001b[2J\\u009b\\u202e!"
        let push = try alice.lib("push")
        #expect(push.status == 3, "\(push)")
        #expect(!Self.hasRawControl(push.stdout + push.stderr), "\((push.stdout + push.stderr).debugDescription)")
        #expect(peer.receivedRequests.contains { $0.hasPrefix(wire == "v1" ? "PUT /v1/books/b-7 " : "POST /v2/writes ") },
                "\(peer.receivedRequests)")
        for result in [try alice.lib("status"), try alice.lib("resolve"), try alice.lib("resolve", "books/b-7"),
                       try alice.lib("diff"), try alice.lib("diff", "books/b-7")] {
            #expect(!Self.hasRawControl(result.stdout + result.stderr), "\(result.command): \((result.stdout + result.stderr).debugDescription)")
            #expect((result.stdout + result.stderr).contains(shown), "\(result.command): \((result.stdout + result.stderr).debugDescription)")
        }
        let json = try alice.lib("status", "--json")
        #expect(!Self.hasRawControl(json.stdout), "\(json.stdout.debugDescription)")
        #expect(json.stdout.contains(#"Refused\u001b]0;owned\u0007"#), "\(json.stdout.debugDescription)")
        _ = peer
    }
}
