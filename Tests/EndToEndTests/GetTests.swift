import Foundation
import Glibc
import LibJSON
import Testing
import TestSupport

/// `lib get` against the real server and real network conditions (issue 6).
@Suite struct GetTests {
    @Test func freshReadPrintsTheDocumentAndCachesIt() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let result = try lib.lib("get", "books/b-7")
        #expect(result.status == 0, "\(result)")
        let document = try JSONParser.parse(result.stdout)
        #expect(document["title"]?.stringValue == "Dune")
        #expect(document["author"]?.stringValue == "Frank Herbert")
        #expect(result.stderr == "")
        let row = try lib.cacheRow("books/b-7", account: lib.account("alice", on: server))
        #expect(row?.etag.hasPrefix("\"") == true, "the ETag is cached: \(String(describing: row))")
    }

    /// A 304 is the only answer that keeps a cached body the server never
    /// sent: the body is marked, its ETag kept, and the marked body must come
    /// back with `validated_at` moved and `fetched_at` not.
    @Test func cachedCopyIsRevalidatedWithIfNoneMatch() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let account = lib.account("alice", on: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        try lib.sql(account, """
            UPDATE documents SET body = '{"id":"b-7","title":"marked-in-cache"}', fetched_at = 1000, validated_at = 1000
            WHERE path = 'books/b-7'
            """)
        let revalidated = try lib.lib("get", "books/b-7")
        #expect(revalidated.status == 0, "\(revalidated)")
        #expect(try JSONParser.parse(revalidated.stdout)["title"]?.stringValue == "marked-in-cache", "\(revalidated)")
        let row = try #require(try lib.cacheRow("books/b-7", account: account))
        #expect(row.fetchedAt == 1000, "a 304 leaves fetched_at alone")
        #expect(row.validatedAt > Date().timeIntervalSince1970 - 60, "a 304 moves validated_at")

        // With an ETag the server does not know, it answers 200 and the real document replaces the mark.
        try lib.sql(account, #"UPDATE documents SET etag = '"unknown"' WHERE path = 'books/b-7'"#)
        let refetched = try lib.lib("get", "books/b-7")
        #expect(try JSONParser.parse(refetched.stdout)["title"]?.stringValue == "Dune", "\(refetched)")
        #expect(try #require(try lib.cacheRow("books/b-7", account: account)).fetchedAt > 1000)
    }

    @Test func serverStoppedShowsTheCachedCopyWithItsAgeAndReason() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        let threeHoursAgo = Date().timeIntervalSince1970 - 3 * 3600
        try lib.sql(lib.account("alice", on: server), "UPDATE documents SET validated_at = \(threeHoursAgo) WHERE path = 'books/b-7'")
        server.stop()
        let result = try lib.lib("get", "books/b-7")
        #expect(result.status == 0, "\(result)")
        #expect(try JSONParser.parse(result.stdout)["title"]?.stringValue == "Dune")
        #expect(result.stderr == "Showing the copy from 3 hours ago. Couldn't reach 127.0.0.1:\(server.port): connection refused — the server may be down.\n")
    }

    /// A namespace whose `lo` is down and has no address has no route even to
    /// 127.0.0.1 (ENETUNREACH), the same as a machine with no network at all.
    @Test(.enabled(if: NetworkNamespace.isSupported, NetworkNamespace.skipReason))
    func noRouteShowsTheCachedCopyAndSaysOffline() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        let namespace = try NetworkNamespace()
        // lo down and without its address: no route to 127.0.0.1 at all (a
        // lo merely set down keeps its local route and connects time out).
        try namespace.ip(["link", "set", "lo", "down"])
        try namespace.ip(["addr", "flush", "dev", "lo"])
        let result = try namespace.run(BuiltProducts.path("lib"), ["get", "books/b-7"], environment: lib.sessionEnvironment)
        #expect(result.status == 0, "\(result)")
        #expect(try JSONParser.parse(result.stdout)["title"]?.stringValue == "Dune")
        #expect(result.stderr == "Showing the copy saved just now. You're offline (no network route to 127.0.0.1).\n", "\(result)")
    }

    @Test func offlineNeedsNeitherServerNorKeyring() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        server.stop()
        let noKeyring = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "XDG_RUNTIME_DIR": "/nonexistent"]
        let offline = try lib.lib(["get", "--offline", "books/b-7"], environment: noKeyring)
        #expect(offline.status == 0, "\(offline)")
        #expect(try JSONParser.parse(offline.stdout)["title"]?.stringValue == "Dune")
        #expect(offline.stderr == "Showing the copy saved just now.\n")
        // The same environment does keep the keyring away: without --offline, lib needs it (exit 4)
        // in a session where the kernel keyring has no copy of the token cached.
        let online = try lib.libInAnotherSession(["get", "books/b-7"], environment: noKeyring)
        #expect(online.status == 4, "\(online)")
    }

    @Test func freshNeverFallsBack() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        server.stop()
        let result = try lib.lib("get", "--fresh", "books/b-7")
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr == "lib: Couldn't reach 127.0.0.1:\(server.port): connection refused — the server may be down.\n")
    }

    @Test func serverErrorFallsBackUnlessFresh() throws {
        let server = try startDemoServer(arguments: ["--fault-control"])
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        let control = try HTTPTestClient(port: server.port)
        #expect(try control.request("PUT", "/_test/faults", body: "status=503").status == 200)
        let fallback = try lib.lib("get", "books/b-7")
        #expect(fallback.status == 0, "\(fallback)")
        #expect(try JSONParser.parse(fallback.stdout)["title"]?.stringValue == "Dune")
        #expect(fallback.stderr.hasPrefix("Showing the copy saved just now. 127.0.0.1 answered 503"), "\(fallback)")
        let fresh = try lib.lib("get", "--fresh", "books/b-7")
        #expect(fresh.status == 75 && fresh.stdout == "", "\(fresh)")
    }

    @Test func nothingCachedAndNoServerExits75() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        server.stop()
        let result = try lib.lib("get", "books/b-7")
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr == "lib: Couldn't reach 127.0.0.1:\(server.port): connection refused — the server may be down.\n")
        let offline = try lib.lib("get", "--offline", "books/b-7")
        #expect(offline.status == 1, "\(offline)")
        #expect(offline.stderr.contains("books/b-7 is not cached for alice@"), "\(offline)")
    }

    @Test func notFoundForgetsTheCachedCopy() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let account = lib.account("alice", on: server)
        #expect(try lib.lib("get", "books/b-3").status == 0)
        #expect(try lib.cacheRow("books/b-3", account: account) != nil)

        // bob deletes the book through the protocol.
        let client = try HTTPTestClient(port: server.port)
        let session = try client.request("POST", "/v1/sessions", headers: [("Content-Type", "application/json")],
                                         body: #"{"username":"bob","password":"bob-demo"}"#)
        let token = try #require(try JSONParser.parse(session.body)["token"]?.stringValue)
        let current = try client.request("GET", "/v1/books/b-3", headers: [("Authorization", "Bearer \(token)")])
        let etag = try #require(current.header("ETag"))
        let deleted = try client.request("DELETE", "/v1/books/b-3", headers: [
            ("Authorization", "Bearer \(token)"), ("If-Match", etag), ("Idempotency-Key", "get-tests-delete")])
        #expect(deleted.status == 204)

        let result = try lib.lib("get", "books/b-3")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr == "lib: books/b-3 is not on 127.0.0.1:\(server.port); the cached copy was forgotten\n")
        #expect(try lib.cacheRow("books/b-3", account: account) == nil)
        #expect(try lib.lib("get", "--offline", "books/b-3").status == 1)
    }

    /// Writes put in the outbox through the store (a change is its intent: the fields it sets).
    @Test func pendingWritesAreShownAppliedAndMarked() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let account = lib.account("alice", on: server)
        #expect(try lib.lib("get", "books").status == 0)
        try lib.sql(account, """
            INSERT INTO outbox (path, method, changes, base_etag, if_match, idempotency_key, created_at, updated_at)
            VALUES ('books/b-7', 'PUT', '{"set":{"title":"Dune (annotated)"},"remove":[]}',
                    '"x"', '"x"', 'k-1', 0, 0),
                   ('books/b-8', 'DELETE', NULL, '"y"', '"y"', 'k-2', 0, 0);
            """)
        for arguments in [["get", "books/b-7"], ["get", "--offline", "books/b-7"]] {
            let result = try lib.lib(arguments)
            #expect(result.status == 0, "\(result)")
            let document = try JSONParser.parse(result.stdout)
            #expect(document["title"]?.stringValue == "Dune (annotated)", "\(result)")
            #expect(document["_pending"]?["changes"]?.integerValue == 1)
            #expect(document["_pending"]?["deleted"]?.boolValue == false)
            #expect(result.stderr.hasSuffix("1 change saved on this device, not yet pushed\n"), "\(result)")
        }
        let deleted = try lib.lib("get", "--offline", "books/b-8")
        #expect(try JSONParser.parse(deleted.stdout)["_pending"]?["deleted"]?.boolValue == true, "\(deleted)")

        let collection = try lib.lib("get", "books")
        #expect(collection.status == 0, "\(collection)")
        let items = try #require(try JSONParser.parse(collection.stdout)["items"]?.arrayValue)
        #expect(items.count == 20)
        #expect(items.first { $0["id"]?.stringValue == "b-7" }?["title"]?.stringValue == "Dune (annotated)")
        #expect(collection.stderr == "2 changes saved on this device, not yet pushed\n")
        // The server still has the old title: nothing was sent.
        #expect(try lib.cacheRow("books/b-7", account: account)?.body.contains("\"Dune\"") == true)
    }

    @Test func oneAccountsCacheIsInvisibleToAnother() throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        try lib.login("bob", to: server)
        let alice = lib.account("alice", on: server), bob = lib.account("bob", on: server)
        #expect(try lib.lib("-A", alice, "get", "books/b-7").status == 0)
        #expect(try lib.lib("-A", alice, "__complete", "paths", "books/b-7").stdout == "books/b-7\n")

        let offline = try lib.lib("-A", bob, "get", "--offline", "books/b-7")
        #expect(offline.status == 1, "\(offline)")
        #expect(offline.stdout == "")
        #expect(try lib.lib("-A", bob, "__complete", "paths", "books/").stdout == "")
        server.stop()
        let unreachable = try lib.lib("-A", bob, "get", "books/b-7")
        #expect(unreachable.status == 75 && unreachable.stdout == "", "\(unreachable)")
    }

    @Test(arguments: ["../x", "", "books/b 7", "http://evil.example/v1/books/b-7", "books/../../etc", "shelves/s-1"])
    func malformedPathsAreRefusedBeforeAnythingElse(path: String) throws {
        // No account at all: the path is checked first, so the usage error wins.
        let lib = try LibHarness()
        let result = try lib.lib("get", path)
        #expect(result.status == 2, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("lib: "), "\(result)")
        #expect(result.stderr.contains("Use a path such as 'books' or 'books/b-7'"), "\(result)")
        #expect(lib.files().isEmpty)
    }

    /// Anything on the server's address that is not the library server (a
    /// portal's page, `{}`, a document without an ETag, cut JSON, a page's
    /// 404) is said as such, the cached copy is shown (exit 0, as for any
    /// temporary failure) and the cache is untouched: nothing invalid is
    /// ever kept, and nothing is forgotten on a stranger's word.
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"evil\"\r\nContent-Length: 9\r\nConnection: close\r\n\r\n{\"id\": tr",
         "200 with cut or invalid JSON"),
        ("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nETag: \"evil\"\r\nContent-Length: 13\r\nConnection: close\r\n\r\n<h1>Hello</h1",
         "200 text/html where a book was expected"),
        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nETag: \"evil\"\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
         "200 with a document that is not the book b-7"),
        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 27\r\nConnection: close\r\n\r\n{\"id\":\"b-7\",\"title\":\"Fake\"}",
         "200 JSON without an ETag"),
        ("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 13\r\nConnection: close\r\n\r\n<h1>Gone</h1>",
         "404 text/html"),
    ])
    func unusableAnswersAreReportedAndDoNotOverwriteTheCache(answer: String, reported: String) throws {
        let server = try startDemoServer()
        let lib = try LibHarness()
        try lib.login("alice", to: server)
        let account = lib.account("alice", on: server)
        #expect(try lib.lib("get", "books/b-7").status == 0)
        let before = try #require(try lib.cacheRow("books/b-7", account: account))
        server.stop()
        // Something else now answers on the server's address.
        let impostor = try CannedHTTPResponder(port: UInt16(server.port), answer: answer)
        let result = try lib.lib("get", "books/b-7")
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("127.0.0.1:\(server.port) gave an answer that did not come from the library server (a captive portal or a proxy may be answering): \(reported)."), "\(result)")
        #expect(result.stderr.hasPrefix("Showing the copy "), "\(result)")
        #expect(try JSONParser.parse(result.stdout)["title"]?.stringValue == "Dune", "the cached copy is still shown")
        #expect(try lib.cacheRow("books/b-7", account: account) == before)
        #expect(impostor.requests > 0)
    }
}

/// One cached document's row, read from the account's store with sqlite3.
struct CacheRow: Equatable {
    let body: String
    let etag: String
    let fetchedAt: Double
    let validatedAt: Double
}

extension LibHarness {
    func storePath(_ account: String) -> String { home.path + "/data/accounts/\(account)/store.sqlite" }

    /// Runs SQL on an account's store (tests only: lib never shares its store).
    @discardableResult
    func sql(_ account: String, _ statement: String) throws -> String {
        let result = try CommandRunner.run("/usr/bin/sqlite3", ["-separator", "\t", storePath(account), statement])
        guard result.status == 0 else { throw CannedResponderError.setup("sqlite3 failed: \(result)") }
        return result.stdout
    }

    func cacheRow(_ path: String, account: String) throws -> CacheRow? {
        let out = try sql(account, "SELECT etag, fetched_at, validated_at, body FROM documents WHERE path = '\(path)'")
        let fields = out.trimmingCharacters(in: .newlines).split(separator: "\t", maxSplits: 3).map(String.init)
        guard fields.count == 4, let fetched = Double(fields[1]), let validated = Double(fields[2]) else { return nil }
        return CacheRow(body: fields[3], etag: fields[0], fetchedAt: fetched, validatedAt: validated)
    }

    /// What `lib` needs inside a network namespace: its home and the
    /// session's keyring (a D-Bus socket path, reachable from any namespace).
    var sessionEnvironment: [String: String] {
        var env = ["LIB_HOME": home.path]
        for key in ["HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "LIB_BIN_DIR"] {
            if let value = ProcessInfo.processInfo.environment[key] { env[key] = value }
        }
        return env
    }
}

enum CannedResponderError: Error { case setup(String) }

/// A TCP listener on 127.0.0.1:PORT that answers every request with the
/// same bytes and closes: a "server" that breaks the protocol on purpose.
final class CannedHTTPResponder: @unchecked Sendable {
    private let listener: Int32
    private let counter = Counter()
    private let ended = DispatchSemaphore(value: 0)

    var requests: Int { counter.value }

    init(port: UInt16, answer: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CannedResponderError.setup("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, listen(fd, 8) == 0 else { close(fd); throw CannedResponderError.setup("bind/listen: errno \(errno)") }
        listener = fd
        let bytes = Array(answer.utf8), counter = self.counter, ended = self.ended
        Thread.detachNewThread {
            while true {
                let connection = accept(fd, nil, nil)
                if connection < 0 { ended.signal(); return }
                var head: [UInt8] = []
                var byte: UInt8 = 0
                while recv(connection, &byte, 1, 0) == 1 {
                    head.append(byte)
                    if head.suffix(4) == [13, 10, 13, 10] { break }
                }
                counter.increment()
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(connection)
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        ended.wait()
        close(listener)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }
}
