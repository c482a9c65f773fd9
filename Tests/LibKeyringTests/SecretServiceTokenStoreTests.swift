import Foundation
import LibKeyring
import Testing
import TestSupport

/// The real store, in this process, against the throwaway keyring of
/// `scripts/with-test-session.sh` (which `make test` uses). Disabled outside
/// it, so that a developer's own keyring never receives test tokens.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["LIB_IN_TEST_SESSION"] == "1",
                "needs scripts/with-test-session.sh"))
struct SecretServiceTokenStoreTests {
    let store = SecretServiceTokenStore(timeouts: KeyringTimeouts(call: .seconds(5), unlockPrompt: .seconds(5)))

    /// An origin no other test uses, so tests can run in parallel on one keyring.
    func uniqueServer() -> String { "http://test-\(UUID().uuidString.prefix(8).lowercased()).invalid:8080" }

    @Test func storeLookUpReplaceDelete() throws {
        let account = KeyringAccount(server: uniqueServer(), userID: "u-1", userName: "alice")
        try store.store(token: "first-token", for: account)
        #expect(try store.token(for: account) == "first-token")
        try store.store(token: "second-token", for: account)
        #expect(try store.token(for: account) == "second-token")
        try store.deleteToken(for: account)
        #expect(throws: KeyringError.notFound) { try store.token(for: account) }
    }

    @Test func accountsNeverSeeEachOthersTokens() throws {
        let first = uniqueServer(), second = uniqueServer()
        let alice = KeyringAccount(server: first, userID: "u-1", userName: "alice")
        let bob = KeyringAccount(server: first, userID: "u-2", userName: "bob")
        let aliceElsewhere = KeyringAccount(server: second, userID: "u-1", userName: "alice")
        try store.store(token: "alice-token", for: alice)
        try store.store(token: "bob-token", for: bob)
        try store.store(token: "alice-elsewhere-token", for: aliceElsewhere)

        #expect(try store.token(for: alice) == "alice-token")
        #expect(try store.token(for: bob) == "bob-token")
        #expect(try store.token(for: aliceElsewhere) == "alice-elsewhere-token")

        try store.deleteToken(for: alice)
        #expect(throws: KeyringError.notFound) { try store.token(for: alice) }
        #expect(try store.token(for: bob) == "bob-token")
        #expect(try store.token(for: aliceElsewhere) == "alice-elsewhere-token")
        try store.deleteToken(for: bob)
        try store.deleteToken(for: aliceElsewhere)
    }

    @Test func notFoundIsItsOwnError() throws {
        let nobody = KeyringAccount(server: uniqueServer(), userID: "u-9", userName: "nobody")
        #expect(throws: KeyringError.notFound) { try store.token(for: nobody) }
        #expect(throws: KeyringError.notFound) { try store.deleteToken(for: nobody) }
    }

    @Test func renamedUserKeepsOneToken() throws {
        let server = uniqueServer()
        try store.store(token: "t-1", for: KeyringAccount(server: server, userID: "u-1", userName: "alice"))
        try store.store(token: "t-2", for: KeyringAccount(server: server, userID: "u-1", userName: "alicia"))
        #expect(try store.token(for: KeyringAccount(server: server, userID: "u-1", userName: "anyone")) == "t-2")
        try store.deleteToken(for: KeyringAccount(server: server, userID: "u-1", userName: "alicia"))
        #expect(throws: KeyringError.notFound) {
            try store.token(for: KeyringAccount(server: server, userID: "u-1", userName: "alice"))
        }
    }

    @Test func itemHasTheSchemaAttributesAndLabelOtherToolsShow() throws {
        let server = uniqueServer()
        let account = KeyringAccount(server: server, userID: "u-3", userName: "carol")
        try store.store(token: "carol-token", for: account)
        defer { try? store.deleteToken(for: account) }
        let shown = try CommandRunner.run(
            "/usr/bin/secret-tool", ["lookup", "xdg:schema", "org.lib.Token", "server", server, "user-id", "u-3"])
        #expect(shown.stdout == "carol-token", "\(shown)")
        let search = try CommandRunner.run("/usr/bin/secret-tool", ["search", "server", server])
        let text = search.stdout + search.stderr
        let host = server.replacingOccurrences(of: "http://", with: "")
        #expect(text.contains("label = lib token for carol@\(host)"), "\(search)")
        #expect(text.contains("attribute.user-id = u-3"), "\(search)")
    }

    @Test func concurrentCallsFromManyThreads() async throws {
        let server = uniqueServer()
        let store = self.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let account = KeyringAccount(server: server, userID: "u-\(index)", userName: "user\(index)")
                    try store.store(token: "token-\(index)", for: account)
                    #expect(try store.token(for: account) == "token-\(index)")
                    try store.deleteToken(for: account)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func tokenAndUnicodeSurviveTheRoundTrip() throws {
        let account = KeyringAccount(server: uniqueServer(), userID: "ü-1", userName: "zoë")
        let token = "tok_\(UUID().uuidString)_ümlaut=="
        try store.store(token: token, for: account)
        #expect(try store.token(for: account) == token)
        try store.deleteToken(for: account)
    }
}
