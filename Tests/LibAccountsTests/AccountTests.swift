import Foundation
import LibAccounts
import Testing
import TestSupport
import LibBase

@Suite struct ServerOriginTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080", "127.0.0.1:8080"),
        ("HTTP://Library.Example.org/", "http://library.example.org:80", "library.example.org"),
        ("https://library.example.org:443", "https://library.example.org:443", "library.example.org"),
        ("http://[::1]:9000", "http://[::1]:9000", "[::1]:9000"),
    ])
    func normalizes(text: String, url: String, shown: String) throws {
        let origin = try ServerOrigin(parsing: text)
        #expect(origin.url == url)
        #expect(origin.hostAndPort == shown)
    }

    @Test(arguments: [
        ("localhost:8080", "'localhost:8080' is not a server URL (expected http://HOST[:PORT] or https://HOST[:PORT])"),
        ("ftp://x", "unsupported scheme 'ftp': use http or https"),
        ("http://x/v1", "'http://x/v1' has a path; give only the server, as in http://HOST:PORT"),
        ("http://x:99999", "'http://x:99999' is not a server URL (expected http://HOST[:PORT] or https://HOST[:PORT])"),
        ("http://user@x", "'http://user@x' is not a server URL (expected http://HOST[:PORT] or https://HOST[:PORT])"),
    ])
    func refusesWhatIsNotAnOrigin(text: String, message: String) {
        #expect(throws: ServerOrigin.ParseError.self) { try ServerOrigin(parsing: text) }
        do { _ = try ServerOrigin(parsing: text) } catch { #expect(error.description == message) }
    }
}

@Suite struct AccountIndexTests {
    let local = try! ServerOrigin(parsing: "http://127.0.0.1:8080")
    let other = try! ServerOrigin(parsing: "http://127.0.0.1:9090")

    var index: AccountIndex {
        var index = AccountIndex()
        index.add(Account(origin: local, userID: "u-1", username: "alice"))
        index.add(Account(origin: local, userID: "u-2", username: "bob"))
        index.add(Account(origin: other, userID: "u-9", username: "alice"))
        return index
    }

    @Test func selectsByExactNameOrUniquePrefix() throws {
        #expect(try AccountSelection.resolve("bob", in: index).name == "bob@127.0.0.1:8080")
        #expect(try AccountSelection.resolve("alice@127.0.0.1:9", in: index).userID == "u-9")
        #expect(try AccountSelection.resolve("alice@127.0.0.1:8080", in: index).userID == "u-1")
        #expect(try AccountSelection.resolve(nil, in: index).name == "alice@127.0.0.1:9090", "the last added is current")
    }

    @Test func saysWhichAccountsMatchWhenAmbiguous() {
        #expect(throws: AccountSelection.Failure.ambiguous("alice", matches: ["alice@127.0.0.1:8080", "alice@127.0.0.1:9090"])) {
            try AccountSelection.resolve("alice", in: index)
        }
        #expect(throws: AccountSelection.Failure.notFound("carol", known: ["alice@127.0.0.1:8080", "bob@127.0.0.1:8080", "alice@127.0.0.1:9090"])) {
            try AccountSelection.resolve("carol", in: index)
        }
        #expect(throws: AccountSelection.Failure.noAccounts) { try AccountSelection.resolve(nil, in: AccountIndex()) }
    }

    @Test func removingTheCurrentMovesToAnother() {
        var index = self.index
        index.remove(named: "alice@127.0.0.1:9090")
        #expect(index.currentName == "alice@127.0.0.1:8080")
        index.remove(named: "alice@127.0.0.1:8080")
        index.remove(named: "bob@127.0.0.1:8080")
        #expect(index.currentName == nil)
    }

    @Test func roundTripsThroughPrivateFiles() throws {
        let dir = try TemporaryDirectory()
        let old = umask(0)
        defer { umask(old) }
        let config = dir.file("config/lib")
        try index.save(to: config)
        #expect(try AccountIndex.load(from: config) == index)
        for (path, mode) in [(config, 0o700), (dir.file("config"), 0o700), (config + "/accounts", 0o600), (config + "/current", 0o600)] {
            let actual = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
            #expect(actual == mode, "\(path)")
        }
        #expect(try AccountIndex.load(from: dir.file("nothing-here")) == AccountIndex())
    }

    /// The login stamp and the headless opt-in (issue 35) are kept, and a
    /// file from before them (four fields) still loads, with neither.
    @Test func theLoginStampAndTheHeadlessOptInRoundTrip() throws {
        let dir = try TemporaryDirectory()
        let origin = try ServerOrigin(parsing: "http://127.0.0.1:8080")
        let stamp = Account.newTokenStamp()
        #expect(stamp.count == 32 && stamp != Account.newTokenStamp())
        var index = AccountIndex()
        index.add(Account(origin: origin, userID: "u-1", username: "alice", tokenStamp: stamp, headless: true))
        index.add(Account(origin: origin, userID: "u-2", username: "bob", tokenStamp: "s-2"))
        try index.save(to: dir.path)
        let loaded = try AccountIndex.load(from: dir.path)
        #expect(loaded.account(named: "alice@127.0.0.1:8080")?.tokenStamp == stamp)
        #expect(loaded.account(named: "alice@127.0.0.1:8080")?.headless == true)
        #expect(loaded.account(named: "bob@127.0.0.1:8080")?.headless == false)
        try "alice@127.0.0.1:8080\thttp://127.0.0.1:8080\tu-1\talice\n".write(toFile: dir.file("accounts"), atomically: true, encoding: .utf8)
        let old = try AccountIndex.load(from: dir.path).accounts
        #expect(old.count == 1 && old[0].tokenStamp == "" && !old[0].headless)
        // The stamp and the opt-in are settings, not the account's identity or name.
        #expect(old[0] == Account(origin: origin, userID: "u-1", username: "alice", tokenStamp: stamp, headless: true))
    }

    @Test func aDamagedIndexIsReportedNotIgnored() throws {
        let dir = try TemporaryDirectory()
        try "garbage line\n".write(toFile: dir.file("accounts"), atomically: true, encoding: .utf8)
        #expect(throws: AccountFileError.malformed(path: dir.file("accounts"), line: "garbage line")) {
            try AccountIndex.load(from: dir.path)
        }
    }
}
