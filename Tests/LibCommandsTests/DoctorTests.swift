import Foundation
import LibBase
import LibJSON
import LibNet
import Testing

// `lib doctor`: the checks in order, each with its status; the exit code is
// the worst problem's. The bus address is one doctor only reads (a tcp:
// address is not tried), so nothing outside this process is asked.

/// The checks of `lib --json doctor`, by name (the account's checks by name too).
private func checks(_ run: Run) -> [String: JSONValue] {
    let items = JSONValue.parsing(run.stdout)?["checks"]?.arrayValue ?? []
    return Dictionary(items.compactMap { item in item["check"]?.stringValue.map { ($0, item) } }) { first, _ in first }
}

private func machineForDoctor() throws -> Machine {
    let machine = try Machine()
    machine.environment["DBUS_SESSION_BUS_ADDRESS"] = "tcp:host=127.0.0.1,port=1"
    return machine
}

@Test func doctorFindsAllWellAndTheClockInStepWithTheServer() throws {
    let machine = try machineForDoctor()
    defer { machine.verify() }
    machine.signIn()
    machine.server.on("GET", "/v1/me") { _ in
        // The fixed clock's instant, as the server's Date says it.
        Answers.json(200, ["id": "u-alice", "username": "alice", "role": "librarian"], [("Date", "Fri, 15 Jan 2027 08:00:00 GMT")])
    }
    let run = machine.lib("--json", "doctor")
    #expect(run.exitCode == .success, "\(run)")
    let found = checks(run)
    #expect(found["secret-service"]?["status"] == "ok", "\(run)")
    #expect(found["token"]?["status"] == "ok" && found["token"]?["account"] == "alice@127.0.0.1:8080", "\(run)")
    #expect(found["store"]?["status"] == "ok", "\(run)")
    #expect(found["server"]?["found"]?.stringValue?.contains("GET /v1/me answered 200 as alice") == true, "\(run)")
    #expect(found["clock"]?["found"] == "within 0 s of 127.0.0.1:8080", "\(run)")
    #expect(JSONValue.parsing(run.stdout)?["exit_code"] == 0)
}

@Test func doctorWarnsOfAClockAnHourAheadOfTheServer() throws {
    let machine = try machineForDoctor()
    defer { machine.verify() }
    machine.signIn()
    machine.server.on("GET", "/v1/me") { _ in
        Answers.json(200, ["id": "u-alice", "username": "alice", "role": "librarian"], [("Date", "Fri, 15 Jan 2027 07:00:00 GMT")])
    }
    let run = machine.lib("--json", "doctor")
    #expect(run.exitCode == .success, "a warning does not fail doctor: \(run)")
    #expect(checks(run)["clock"]?["status"] == "warning")
    #expect(checks(run)["clock"]?["found"]?.stringValue?.hasPrefix("3600 s ahead of 127.0.0.1:8080") == true, "\(run)")
}

@Test func doctorReportsARejectedTokenWithExitFour() throws {
    let machine = try machineForDoctor()
    defer { machine.verify() }
    machine.signIn()
    machine.server.on("GET", "/v1/me") { _ in Answers.problem(401, "Sign in first") }
    let run = machine.lib("doctor")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(run.stdout.contains("problem  server (alice@127.0.0.1:8080): 127.0.0.1:8080 rejected the token (401)"), "\(run)")
    #expect(run.stdout.contains("fix: run `lib login http://127.0.0.1:8080`"), "\(run)")
}

@Test func doctorReportsAMissingTokenAndAsksTheServerNothing() throws {
    let machine = try machineForDoctor()
    defer { machine.verify() }
    machine.signIn()
    try machine.keyring.deleteToken(for: machine.keyringAccount())
    let run = machine.lib("--json", "doctor")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(checks(run)["token"]?["found"] == "no token in the keyring", "\(run)")
    #expect(checks(run)["server"]?["status"] == "warning", "\(run)")
    #expect(machine.server.requests("GET", "/v1/me").count == 1, "only the sign-in's")
}

@Test func doctorWithABusAddressThatAnswersNothingStopsBeforeTheKeyring() throws {
    let machine = try machineForDoctor()
    defer { machine.verify() }
    machine.signIn()
    machine.environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(machine.home.path)/no-bus"
    machine.keyring.fail(with: .locked)  // it would say so if it were asked
    let run = machine.lib("--json", "doctor")
    #expect(run.exitCode == .authentication, "\(run)")
    let found = checks(run)
    #expect(found["session-bus"]?["status"] == "problem", "\(run)")
    #expect(found["secret-service"] == nil, "\(run)")
    // Only a cache is asked for the token (the in-memory keyring has none).
    #expect(found["token"]?["found"] == "not in the kernel keyring's cache, and the Secret Service is unreachable (above)", "\(run)")
    #expect(found["proxies"]?["found"] == "none")
}

/// Without a bus, and with a bus cron will not find, doctor names
/// `lib login --headless` (issue 49), once.
@Test func doctorsBusChecksNameHeadlessSignInOnce() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.environment["XDG_RUNTIME_DIR"] = machine.home.path
    let none = machine.lib("--json", "doctor")
    #expect(checks(none)["session-bus"]?["status"] == "problem", "\(none)")
    #expect(checks(none)["session-bus"]?["fix"]?.stringValue?.contains("`lib login --headless`") == true, "\(none)")
    #expect(none.stdout.components(separatedBy: "lib login --headless").count == 2, "once: \(none)")
}

@Test(.enabled(if: !FileManager.default.fileExists(atPath: "/run/user/\(getuid())/bus"), "cron's bus exists on this machine"))
func doctorsCronWarningNamesHeadlessSignIn() throws {
    let machine = try machineForDoctor()
    defer { machine.verify() }
    let run = machine.lib("--json", "doctor")
    #expect(checks(run)["cron-bus"]?["status"] == "warning", "\(run)")
    #expect(checks(run)["cron-bus"]?["fix"]?.stringValue?.contains("`lib login --headless`") == true, "\(run)")
    #expect(run.stdout.components(separatedBy: "lib login --headless").count == 2, "once: \(run)")
}

/// On a terminal 40 or 80 columns wide, doctor's lines are wrapped between
/// words (issue 49: the terminal broke them anywhere, mid-word).
@Test(arguments: [40, 80])
func doctorsLinesFitTheTerminalBetweenWords(columns: Int) throws {
    let machine = try machineForDoctor()
    machine.outputIsTerminal = true
    machine.environment["COLUMNS"] = "1000"
    let wide = machine.lib("--no-color", "doctor").stdout
    #expect(wide.split(separator: "\n").contains { $0.count > columns }, "some line needs wrapping:\n\(wide)")
    machine.environment["COLUMNS"] = String(columns)
    let narrow = machine.lib("--no-color", "doctor").stdout
    // A command in backticks is never broken: alone on its line, it may be longer.
    let oneCommand = { (line: Substring) in line.drop { $0 == " " }.first == "`" && line.filter { $0 == "`" }.count == 2 }
    for line in narrow.split(separator: "\n") where !oneCommand(line) {
        #expect(line.count < columns, "\(line.count) columns: \(line)")
    }
    #expect(narrow.split(whereSeparator: \.isWhitespace) == wide.split(whereSeparator: \.isWhitespace), "no word is broken:\n\(narrow)")
}
