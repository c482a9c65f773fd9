import Foundation
import Testing
import TestSupport

/// `lib login --device` on a box nobody types a password on, approved by
/// `lib device approve CODE` where alice is signed in, or denied, or left to
/// expire; each waits one poll interval (5 s) of the real server.
@Suite struct DeviceSignInTests {
    /// Starts `lib login SERVER --device` on `box` and returns it with the code it shows.
    func startDeviceLogin(_ box: LibHarness, _ server: ServerProcess) throws -> (RunningWatcher, String) {
        let login = try RunningWatcher(box, arguments: ["login", server.baseURL, "--device"], name: "login")
        #expect(login.waitForLine(containing: "Waiting…"), "\(login.stderr)")
        let match = login.stderr.firstMatch(of: /enter the code ([A-Z]{4}-[A-Z]{4}) \(or run `lib device approve ([A-Z]{4}-[A-Z]{4})`/)
        let code = try #require(match.map { String($0.1) }, "\(login.stderr)")
        #expect(login.stderr.contains("open http://\(server.host):\(server.port)/device and enter the code"))
        #expect(login.stderr.contains("(expires in 15 min)"))
        return (login, code)
    }

    func exitStatus(_ login: RunningWatcher) -> Int32? {
        guard ChildProcessExit.wait(for: login.process, timeout: 40) else { return nil }
        login.process.waitUntilExit()
        return login.process.terminationStatus
    }

    @Test func aBoxSignsInWhenAnotherLibApprovesItsCode() throws {
        let server = try startDemoServer()
        let alice = try LibHarness(), box = try LibHarness()
        try alice.login("alice", to: server)
        let (login, code) = try startDeviceLogin(box, server)
        let approved = try alice.lib("device", "approve", code.lowercased())
        #expect(approved.status == 0, "\(approved)")
        #expect(approved.stdout == "Approved: the device is signed in to \(server.host):\(server.port) as alice.\n")
        #expect(exitStatus(login) == 0, "\(login.stderr)")
        let status = try box.lib("status")
        #expect(status.status == 0, "\(status)")
        let get = try box.lib("get", "books/b-7")
        #expect(get.status == 0 && get.stdout.contains("Dune"), "\(get)")
        #expect(try box.lib("--json", "status").stdout.contains(box.account("alice", on: server)))
        // A code works once.
        let again = try alice.lib("device", "approve", code)
        #expect(again.status == 1 && again.stderr.contains("was approved or denied already"), "\(again)")
    }

    @Test func aDeniedSignInEndsWithExit4AndNoAccount() throws {
        let server = try startDemoServer()
        let box = try LibHarness()
        let (login, code) = try startDeviceLogin(box, server)
        let denied = try HTTPTestClient(port: server.port).request(
            "POST", "/device", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "user_code=\(code)&action=deny")
        #expect(denied.status == 200)
        #expect(exitStatus(login) == 4)
        #expect(login.stderr.contains("The sign-in was denied"), "\(login.stderr)")
        #expect(try box.lib("status").stdout.contains("Not signed in"))
    }

    @Test func anExpiredCodeEndsWithExit4() throws {
        let server = try startDemoServer(arguments: ["--fault-control"])
        let box = try LibHarness()
        let (login, _) = try startDeviceLogin(box, server)
        #expect(try HTTPTestClient(port: server.port).request("PUT", "/_test/clock", body: "901").status == 200)
        #expect(exitStatus(login) == 4)
        #expect(login.stderr.contains("The code expired; run lib login --device again"), "\(login.stderr)")
    }

    @Test func ctrlCStopsTheWaitLeavingNothing() throws {
        let server = try startDemoServer()
        let box = try LibHarness()
        let (login, _) = try startDeviceLogin(box, server)
        _ = login.terminate(SIGINT)
        #expect(login.process.terminationReason == .uncaughtSignal && login.process.terminationStatus == SIGINT)
        #expect(try box.lib("status").stdout.contains("Not signed in"))
    }

    @Test func approveSaysWhatIsWrong() throws {
        let server = try startDemoServer()
        let alice = try LibHarness(), nobody = try LibHarness()
        try alice.login("alice", to: server)
        let unknown = try alice.lib("device", "approve", "BCDF-GHJK")
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("No device waits for the code BCDF-GHJK"), "\(unknown)")
        let signedOut = try nobody.lib("device", "approve", "BCDF-GHJK")
        #expect(signedOut.status == 4, "\(signedOut)")
        let usage = try alice.lib("device", "deny", "BCDF-GHJK")
        #expect(usage.status == 2, "\(usage)")
    }

    @Test func aServerWithoutDeviceSignInSaysSo() throws {
        let server = try startDemoServer(arguments: ["--no-device-grant"])
        let box = try LibHarness()
        let login = try box.lib("login", server.baseURL, "--device")
        #expect(login.status == 1)
        #expect(login.stderr.contains("does not offer device sign-in"), "\(login)")
    }
}
