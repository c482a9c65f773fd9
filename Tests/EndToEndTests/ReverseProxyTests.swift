import Foundation
import LibJSON
import Testing
import TestSupport

/// lib-server behind nginx, as it is deployed: TLS from a private CA (made
/// by the test, trusted with LIB_CA_BUNDLE), gzip on for JSON. Everything a
/// user does works through it: login, get, revalidation (304), edit, push
/// and a conflict.
@Suite(.enabled(if: NginxReverseProxy.isInstalled, "needs nginx (scripts/install-deps.sh)"))
struct ReverseProxyTests {
    @Test func everythingWorksThroughNginx() throws {
        let server = try startDemoServer()
        let nginx = try NginxReverseProxy(upstreamPort: server.port)
        let alice = try LibHarness(), bob = try LibHarness()
        for user in [alice, bob] { user.extraEnvironment = ["LIB_CA_BUNDLE": nginx.authority.certificate] }

        for (harness, name) in [(alice, "alice"), (bob, "bob")] {
            let login = try harness.lib("login", nginx.url, "--user", name, "--password-stdin", stdin: "\(name)-demo\n")
            #expect(login.status == 0, "\(login)")
            #expect(login.stdout.contains("as \(name) (account \(name)@127.0.0.1:\(nginx.port))"), "\(login)")
        }
        let get = try alice.lib("get", "books/b-7")
        #expect(get.status == 0 && get.stderr.isEmpty, "\(get)")
        #expect(try JSONParser.parse(get.stdout)["title"]?.stringValue == "Dune")
        let again = try alice.lib("get", "books/b-7")
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again)")
        #expect(nginx.accessLog.contains("GET /v1/books/b-7 304"), "revalidated: \(nginx.accessLog)")
        let etag = try CommandRunner.run("/usr/bin/sqlite3", [alice.storePath("alice@127.0.0.1:\(nginx.port)"),
                                                              "SELECT etag FROM documents WHERE path = 'books/b-7'"]).stdout
        #expect(etag.hasPrefix("\""), "a strong ETag, as the server sent it (lib asks for no compression): \(etag)")

        #expect(try alice.lib("edit", "books/b-7", "title=Dune (TLS)").status == 0)
        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        #expect(push.stdout.contains("Pushed 1 write"), "\(push)")
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("Dune (TLS)") == true)

        // Bob changes the book; Alice's next edit, made on her older copy, conflicts.
        #expect(try bob.lib("get", "books/b-7").status == 0)
        #expect(try bob.lib("edit", "books/b-7", "copies:=9").status == 0)
        #expect(try bob.lib("push").status == 0)
        #expect(try alice.lib("edit", "books/b-7", "copies:=1").status == 0)
        let conflict = try alice.lib("push")
        #expect(conflict.status == 3, "\(conflict)")
        #expect(conflict.stdout.contains("1 conflict: books/b-7") || conflict.stderr.contains("1 conflict: books/b-7"), "\(conflict)")
        let resolve = try alice.lib("resolve", "books/b-7", "--theirs")
        #expect(resolve.status == 0, "\(resolve)")
        // The writes went through nginx in v2 batches; the conflict is the
        // batch item's 412, inside the batch's 200.
        #expect(nginx.accessLog.contains("GET /v2/capabilities 200"), "\(nginx.accessLog)")
        #expect(nginx.accessLog.contains("POST /v2/writes 200"), "\(nginx.accessLog)")
        #expect(!nginx.accessLog.contains("PUT /v1/books/"), "\(nginx.accessLog)")
    }
}
