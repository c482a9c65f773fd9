import Foundation
import LibJSON
import Testing
import TestSupport

/// lib through a real forward proxy (tinyproxy): everything works through
/// it, and when something fails the message says whose fault it is — the
/// proxy's (down, unknown name) or the server's behind it.
@Suite(.enabled(if: TinyProxy.isInstalled, "needs tinyproxy (scripts/install-deps.sh)"))
struct ProxyTests {
    /// A server on this machine never goes through the environment's proxy
    /// (it would see the password at sign-in) unless LIB_PROXY_LOOPBACK=1;
    /// doctor says which way each account's requests go.
    @Test func aServerOnThisMachineBypassesTheProxyUnlessAsked() throws {
        let server = try startDemoServer()
        let proxy = try TinyProxy()
        let alice = try LibHarness()
        alice.extraEnvironment = ["http_proxy": proxy.url, "no_proxy": "", "NO_PROXY": "", "all_proxy": "", "ALL_PROXY": ""]
        try alice.login("alice", to: server)
        #expect(try alice.lib("get", "books/b-7", "--fresh").status == 0)
        #expect(!proxy.log.contains("127.0.0.1:\(server.port)"), "nothing went through the proxy:\n\(proxy.log)")
        let doctor = try alice.lib("doctor")
        #expect(doctor.stdout.contains("none: 127.0.0.1 is on this machine (LIB_PROXY_LOOPBACK=1 sends it through the proxy)"), "\(doctor)")
        let asked = try alice.lib(["doctor"], environment: ["LIB_PROXY_LOOPBACK": "1"])
        #expect(asked.stdout.contains("\(proxy.url) (set in http_proxy)"), "\(asked)")
    }

    @Test func throughTheProxyAndWhoseFaultItIs() throws {
        let server = try startDemoServer()
        let proxy = try TinyProxy()
        let alice = try LibHarness()
        // The server is on loopback: it goes through the proxy only when asked to.
        alice.extraEnvironment = ["http_proxy": proxy.url, "no_proxy": "", "NO_PROXY": "", "all_proxy": "", "ALL_PROXY": "",
                                  "LIB_PROXY_LOOPBACK": "1"]

        // Through it, everything works.
        try alice.login("alice", to: server)
        let get = try alice.lib("get", "books/b-7")
        #expect(get.status == 0 && get.stderr.isEmpty, "\(get)")
        #expect(try alice.lib("edit", "books/b-7", "title=Proxied").status == 0)
        let push = try alice.lib("push")
        #expect(push.status == 0, "\(push)")
        #expect(try serverHistory(server, book: "b-7").last?.document?.contains("Proxied") == true)
        #expect(proxy.log.contains("127.0.0.1"), "the requests went through the proxy:\n\(proxy.log)")

        // The proxy is down: it is named, and the server is not blamed.
        proxy.stop()
        let proxyDown = try alice.lib("get", "books/b-7", "--fresh")
        #expect(proxyDown.status == 75, "\(proxyDown)")
        #expect(proxyDown.stderr == "lib: Couldn't reach the proxy \(proxy.url) (set in http_proxy): connection refused — the proxy may be down (the server was not tried).\n", "\(proxyDown)")

        // A proxy name that does not resolve.
        let unknown = try alice.lib(["get", "books/b-7", "--fresh"], environment: ["http_proxy": "http://proxy.example.invalid:3128"])
        #expect(unknown.status == 75, "\(unknown)")
        #expect(unknown.stderr == "lib: Couldn't resolve the name of the proxy http://proxy.example.invalid:3128 (set in http_proxy).\n", "\(unknown)")

        // The proxy is up, the server behind it is down: the proxy says so.
        try proxy.start()
        server.stop()
        let serverDown = try alice.lib("get", "books/b-7", "--fresh")
        #expect(serverDown.status == 75, "\(serverDown)")
        #expect(serverDown.stderr == "lib: The proxy \(proxy.url) (set in http_proxy) couldn't reach 127.0.0.1:\(server.port) (it answered 500 itself): the server may be down, or the proxy may not be allowed to reach it.\n", "\(serverDown)")
        let fallBack = try alice.lib("get", "books/b-7")
        #expect(fallBack.status == 0, "\(fallBack)")
        #expect(fallBack.stderr.contains("couldn't reach 127.0.0.1:\(server.port) (it answered 500 itself)"), "\(fallBack)")
        #expect(try alice.lib("edit", "books/b-7", "title=Later").status == 0)
        let pushDown = try alice.lib("push")
        #expect(pushDown.status == 75, "\(pushDown)")
        #expect(pushDown.stderr.contains("The proxy \(proxy.url) (set in http_proxy) couldn't reach 127.0.0.1:\(server.port)"), "\(pushDown)")
        #expect(pushDown.stderr.hasSuffix("1 write is saved on this device.\n"), "\(pushDown)")
        #expect(try alice.pending() == 1)

        // The server is back behind the proxy: the write goes, once.
        let restarted = try ServerProcess(database: server.databasePath, listen: "127.0.0.1:\(server.port)")
        #expect(try alice.lib("push").status == 0)
        #expect(try serverHistory(restarted, book: "b-7").filter { $0.document?.contains("Later") == true }.count == 1)
    }

    /// HTTPS through the proxy is a CONNECT tunnel: a refused CONNECT
    /// (CURLINFO_HTTP_CONNECTCODE) is the proxy saying it cannot reach the server.
    @Test func aRefusedTunnelIsTheProxyThatCouldNotReachTheServer() throws {
        let proxy = try TinyProxy()
        let nothingListens = try LoopbackPortReservation()
        let closed = nothingListens.port
        let alice = try LibHarness()
        alice.extraEnvironment = ["https_proxy": proxy.url, "no_proxy": "", "NO_PROXY": "", "LIB_PROXY_LOOPBACK": "1"]
        let login = try alice.lib("login", "https://127.0.0.1:\(closed)", "--user", "alice", "--password-stdin", stdin: "alice-demo\n")
        #expect(login.status == 75, "\(login)")
        #expect(login.stderr.contains("The proxy \(proxy.url) (set in https_proxy) couldn't reach 127.0.0.1:\(closed) (it answered 500 itself)"), "\(login)")
    }
}
