import Foundation
import Testing
import TestSupport

/// The verification page in a real browser: Debian's headless Chromium,
/// driven over the DevTools protocol by scripts/browser/approve_device.py,
/// opens verification_uri_complete, types alice's name and password and
/// presses Approve; the page says approved, its nonce'd style applies under
/// its Content-Security-Policy, and the device's next poll gets alice's
/// session. (It found that `Referrer-Policy: no-referrer` makes a browser
/// send `Origin: null`, which the same-origin check refused.)
@Suite struct DeviceVerificationBrowserTests {
    @Test func aPersonApprovesTheCodeInChromium() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
                     "Debian's chromium is needed (scripts/install-deps.sh installs it)")
        let demo = try DemoServer()
        let code = try demo.client().request("POST", "/v1/device/code", body: "client_id=lib")
        let page = try #require(code.json?["verification_uri_complete"]?.stringValue)
        let userCode = try #require(code.json?["user_code"]?.stringValue)
        let deviceCode = try #require(code.json?["device_code"]?.stringValue)

        let script = OpenAPIDriftTests.root.appendingPathComponent("scripts/browser/approve_device.py").path
        let run = try CommandRunner.run("/usr/bin/python3", [script, page, "alice", "alice-demo"], timeout: 90)
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines == ["prefilled \(userCode)", "result approved",
                          "text Approved: the device is now signed in as alice. You may close this page.",
                          "style sans-serif"], "\(run)")

        let poll = try demo.client().request("POST", "/v1/device/token", body: "device_code=\(deviceCode)")
        #expect(poll.status == 200 && poll.json?["account"]?["username"] == "alice", "\(poll.text)")
    }
}
