import LibBase
import LibJSON
import LibKeyring
import LibNet
import Testing

// `lib login`, `lib logout`, `lib switch`: the account's token in the
// keyring, its files, the index; what the server was sent.

@Test func loginExchangesThePasswordFromStandardInputAndStoresTheToken() throws {
    let machine = try Machine()
    defer { machine.verify() }
    let run = machine.signIn()
    #expect(run.stdout == "Signed in to 127.0.0.1:8080 as alice (account alice@127.0.0.1:8080)\n", "\(run)")
    #expect(run.stderr == "")
    #expect(try machine.keyring.token(for: machine.keyringAccount()) == "lbt_alice")
    // The password went in the body (newline trimmed), the token only in GET /v1/me's header.
    let post = try #require(machine.server.requests("POST", "/v1/sessions").first)
    #expect(JSONValue.parsing(post.body) == ["username": "alice", "password": "alice-demo"])
    #expect(post.headers["Authorization"] == nil)
    #expect(machine.server.requests("GET", "/v1/me").first?.headers["Authorization"] == "Bearer lbt_alice")
}

@Test func loginWithAWrongPasswordExitsFourAndStoresNothing() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.server.on("POST", "/v1/sessions") { _ in Answers.problem(401, "Wrong user name or password") }
    let run = machine.lib("login", machine.server.url, "--user", "alice", "--password-stdin", stdin: "nope\n")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(run.stderr == "lib: Wrong user name or password for 127.0.0.1:8080\n")
    #expect(machine.keyring.accounts.isEmpty)
    #expect(machine.lib("switch").stderr.contains("No accounts"))
}

@Test func loginRefusesAUserNameThatBreaksTheServersRuleAndRevokesTheToken() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.server.expectSignIn(user: "alice", password: "alice-demo", token: "lbt_x", userID: "u-1", username: "../evil")
    machine.server.on("DELETE", "/v1/sessions/current") { _ in HTTPResponse(status: 204, reason: "No Content") }
    let run = machine.lib("login", machine.server.url, "--user", "alice", "--password-stdin", stdin: "alice-demo")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr.contains("gave the user name \"../evil\", which is not a valid user name"), "\(run)")
    #expect(run.stderr.contains("not signed in"))
    #expect(machine.keyring.accounts.isEmpty)
    #expect(machine.server.requests("DELETE", "/v1/sessions/current").first?.headers["Authorization"] == "Bearer lbt_x")
    // Nothing was made for the account: no directory under the data directory.
    #expect(!machine.home.listing().contains("evil"), "\(machine.home.listing())")
}

/// The user id goes into the accounts file: a line break, a tab, an escape
/// or 10 KB in it is refused, the token revoked, nothing written.
@Test(arguments: ["u-1\nforged", "u-1\tx\nhttp://evil:1\tu-2\tbob", "u-\u{1B}]0;owned\u{07}", String(repeating: "u", count: 10_000), ""])
func loginRefusesAUserIDThatBreaksTheRule(userID: String) throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.server.expectSignIn(user: "alice", password: "alice-demo", token: "lbt_x", userID: userID, username: "alice")
    machine.server.on("DELETE", "/v1/sessions/current") { _ in HTTPResponse(status: 204, reason: "No Content") }
    let run = machine.lib("login", machine.server.url, "--user", "alice", "--password-stdin", stdin: "alice-demo")
    #expect(run.exitCode == .failure, "\(run)")
    #expect(run.stderr.contains("which is not a valid user id (1 to 64 letters"), "\(run)")
    #expect(run.stderr.count < 400 && !run.stderr.contains("\u{1B}") && !run.stderr.contains("\u{07}"), "\(run.stderr.debugDescription)")
    #expect(machine.keyring.accounts.isEmpty)
    #expect(machine.server.requests("DELETE", "/v1/sessions/current").count == 1)
    #expect(!machine.home.listing().contains("accounts"), "nothing written: \(machine.home.listing())")
}

@Test func loginWithATokenFromStandardInputChecksItWithTheServer() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.server.expectMe(token: "lbt_given", userID: "u-alice", username: "alice")
    let run = machine.lib("--json", "login", machine.server.url, "--token-stdin", stdin: "lbt_given\n")
    #expect(run.exitCode == .success, "\(run)")
    let document = try #require(JSONValue.parsing(run.stdout))
    #expect(document["account"] == "alice@127.0.0.1:8080")
    #expect(document["user"]?["id"] == "u-alice")
    #expect(document["restored"] == 0)
    #expect(try machine.keyring.token(for: machine.keyringAccount()) == "lbt_given")
}

@Test func loginWithARejectedTokenExitsFour() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.server.on("GET", "/v1/me") { _ in Answers.problem(401, "Sign in first") }
    let run = machine.lib("login", machine.server.url, "--token-stdin", stdin: "lbt_revoked")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(run.stderr == "lib: 127.0.0.1:8080 did not accept that token\n")
    #expect(machine.keyring.accounts.isEmpty)
}

@Test func loginWhenTheServerIsDownExitsSeventyFive() throws {
    let machine = try Machine()
    defer { machine.verify() }
    let origin = machine.server.origin
    machine.server.on("POST", "/v1/sessions") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionRefused, endpoint: origin)
    }
    let run = machine.lib("login", machine.server.url, "--user", "alice", "--password-stdin", stdin: "alice-demo")
    #expect(run.exitCode == .temporaryFailure, "\(run)")
    #expect(run.stderr == "lib: Couldn't reach 127.0.0.1:8080: connection refused — the server may be down.\n")
}

@Test func loginFailsClosedWhenTheKeyringIsLocked() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.keyring.fail(with: .locked)
    // The keyring is asked before the password goes anywhere: no request at all.
    let run = machine.lib("login", machine.server.url, "--user", "alice", "--password-stdin", stdin: "alice-demo")
    #expect(run.exitCode == .authentication, "\(run)")
    #expect(machine.server.received.isEmpty)
}

@Test func logoutRevokesForgetsAndSetsWritesAsideForTheNextLogin() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    #expect(machine.lib("edit", "books/b-7", "copies:=3").exitCode == .success)
    machine.server.on("DELETE", "/v1/sessions/current") { _ in HTTPResponse(status: 204, reason: "No Content") }
    let out = machine.lib("logout")
    #expect(out.exitCode == .success, "\(out)")
    #expect(out.stdout.contains("Signed out of alice@127.0.0.1:8080."))
    #expect(out.stdout.contains("Set aside 1 write not sent yet"), "\(out)")
    #expect(machine.keyring.accounts.isEmpty)
    #expect(machine.server.requests("DELETE", "/v1/sessions/current").first?.headers["Authorization"] == "Bearer lbt_alice")
    #expect(machine.lib("status", "--porcelain").stdout == "")

    // The same identity signs in again: --restore brings the write back, intact.
    machine.server.expectSignIn(user: "alice", password: "alice-demo", token: "lbt_2", userID: "u-alice")
    let back = machine.lib("login", machine.server.url, "--user", "alice", "--password-stdin", "--restore", stdin: "alice-demo")
    #expect(back.exitCode == .success, "\(back)")
    #expect(back.stdout.contains("Restored 1 write set aside at your last logout"), "\(back)")
    let items = try machine.outbox()
    #expect(items.count == 1)
    #expect(items.first?.baseETag == Fixtures.duneETag)
}

@Test func logoutDiscardNeedsYesOffATerminal() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signInWithDune()
    machine.lib("edit", "books/b-7", "copies:=3")
    let refused = machine.lib("logout", "--discard")
    #expect(refused.exitCode == .usage, "\(refused)")
    #expect(refused.stderr.contains("--discard would delete 1 write not sent yet: add --yes to confirm"))
    #expect(try machine.keyring.token(for: machine.keyringAccount()) == "lbt_alice")

    machine.server.on("DELETE", "/v1/sessions/current") { _ in HTTPResponse(status: 204, reason: "No Content") }
    let run = machine.lib("--json", "logout", "--discard", "--yes")
    #expect(run.exitCode == .success, "\(run)")
    let document = try #require(JSONValue.parsing(run.stdout))
    #expect(document["discarded"] == 1 && document["set_aside"] == 0 && document["revoked"] == true)
}

@Test func logoutWhenTheServerCannotBeReachedStillForgetsTheTokenAndSaysSo() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let origin = machine.server.origin
    machine.server.on("DELETE", "/v1/sessions/current") { _ throws(TransportFailure) in
        throw TransportFailure(kind: .connectionRefused, endpoint: origin)
    }
    let run = machine.lib("logout")
    #expect(run.exitCode == .success, "\(run)")
    #expect(run.stderr.contains("Couldn't reach 127.0.0.1:8080 to revoke the token of alice@127.0.0.1:8080"), "\(run)")
    #expect(machine.keyring.accounts.isEmpty)
}

@Test func switchListsAccountsAndMarksTheCurrentOne() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn("alice")
    machine.signIn("bob")
    let list = machine.lib("switch")
    #expect(list.exitCode == .success, "\(list)")
    let lines = list.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 2, "\(list)")
    #expect(lines.contains { $0.hasPrefix("* bob@127.0.0.1:8080") }, "\(list)")
    #expect(lines.contains { $0.hasPrefix("  alice@127.0.0.1:8080") }, "\(list)")

    let switched = machine.lib("switch", "alice")
    #expect(switched.exitCode == .success && switched.stdout == "Switched to alice@127.0.0.1:8080.\n", "\(switched)")
    let json = machine.lib("--json", "switch")
    let entries = try #require(JSONValue.parsing(json.stdout)?.arrayValue)
    #expect(entries.first { $0["current"] == true }?["account"] == "alice@127.0.0.1:8080")
}

@Test func switchToAnUnknownAccountFails() throws {
    let machine = try Machine()
    defer { machine.verify() }
    machine.signIn()
    let run = machine.lib("switch", "carol")
    #expect(run.exitCode != .success, "\(run)")
    #expect(run.stderr.contains("carol"), "\(run)")
}
