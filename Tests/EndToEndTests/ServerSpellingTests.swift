import Foundation
import Testing
import TestSupport

/// One spelling of a server in every message of a push: the account's name,
/// the summary and a failure all say `127.0.0.1` for a server on port 80 and
/// `127.0.0.1:8080` for one on 8080 (the port only when it is not the
/// scheme's default). Port 80 is bound inside a network namespace of the
/// test's own, whose only address is its loopback.
@Suite(.enabled(if: NetworkNamespace.isSupported, NetworkNamespace.skipReason))
struct ServerSpellingTests {
    @Test(arguments: [(80, "127.0.0.1"), (8080, "127.0.0.1:8080")])
    func aPushNamesTheServerOneWay(port: Int, spelling: String) throws {
        let namespace = try NetworkNamespace()
        let dir = try TemporaryDirectory("lib-e2e-spelling")
        let server = try ServerProcess(database: dir.file("server.sqlite"), listen: "127.0.0.1:\(port)", inNamespace: namespace.name)
        let lib = try LibHarness()
        func run(_ arguments: [String], stdin: String = "") throws -> CommandResult {
            try CommandRunner.run(NetworkNamespace.ip, ["netns", "exec", namespace.name, BuiltProducts.path("lib")] + arguments,
                                  environment: lib.environment, stdin: stdin)
        }
        let url = port == 80 ? "http://127.0.0.1" : "http://127.0.0.1:\(port)"
        let signIn = try run(["login", url, "--user", "alice", "--password-stdin"], stdin: "alice-demo\n")
        #expect(signIn.status == 0, "\(signIn)")
        #expect(signIn.stdout.contains("(account alice@\(spelling))"), "\(signIn)")
        for attempt in 0..<2 {
            let edit = try run(["edit", "books/b-1", "copies:=\(attempt + 5)"])
            #expect(edit.status == 0, "\(edit)")
            if attempt == 1 { server.stop() }
            let push = try run(["push"])
            let said = push.stdout + push.stderr
            #expect(push.status == (attempt == 0 ? 0 : 75), "\(push)")
            #expect(said.contains("alice@\(spelling)") || said.contains(" \(spelling)"), "\(push)")
            // Every mention of the host is the one spelling.
            for mention in said.components(separatedBy: "127.0.0.1").dropFirst() {
                let digits = mention.dropFirst().prefix { $0.isNumber }
                let port = mention.hasPrefix(":") && !digits.isEmpty ? ":" + digits : ""
                #expect(port == String(spelling.dropFirst("127.0.0.1".count)), "\(push)")
            }
        }
        _ = dir
    }
}
