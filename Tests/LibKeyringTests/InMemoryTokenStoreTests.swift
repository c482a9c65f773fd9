import LibKeyring
import Testing

@Suite struct InMemoryTokenStoreTests {
    let alice = KeyringAccount(server: "http://a.test", userID: "1", userName: "alice")
    let bob = KeyringAccount(server: "http://a.test", userID: "2", userName: "bob")
    let aliceElsewhere = KeyringAccount(server: "http://b.test", userID: "1", userName: "alice")

    @Test func behavesLikeTheKeyring() throws {
        let store = InMemoryTokenStore()
        try store.store(token: "a1", for: alice)
        try store.store(token: "b1", for: bob)
        try store.store(token: "a2", for: aliceElsewhere)
        try store.store(token: "a1-new", for: KeyringAccount(server: "http://a.test", userID: "1", userName: "alicia"))
        #expect(try store.token(for: alice) == "a1-new")
        #expect(try store.token(for: bob) == "b1")
        #expect(try store.token(for: aliceElsewhere) == "a2")
        try store.deleteToken(for: alice)
        #expect(throws: KeyringError.notFound) { try store.token(for: alice) }
        #expect(throws: KeyringError.notFound) { try store.deleteToken(for: alice) }
        #expect(store.accounts == [bob, aliceElsewhere])
    }

    @Test func failsOnRequest() throws {
        let store = InMemoryTokenStore(tokens: [alice: "a1"])
        store.fail(with: .locked)
        #expect(throws: KeyringError.locked) { try store.token(for: alice) }
        #expect(throws: KeyringError.locked) { try store.store(token: "x", for: bob) }
        #expect(throws: KeyringError.locked) { try store.deleteToken(for: alice) }
        store.fail(with: nil)
        #expect(try store.token(for: alice) == "a1")
        #expect(store.accounts == [alice])
    }

    @Test func isSafeToShareAcrossTasks() async throws {
        let store = InMemoryTokenStore()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let account = KeyringAccount(server: "http://a.test", userID: "\(index)", userName: "u\(index)")
                    try? store.store(token: "t\(index)", for: account)
                }
            }
        }
        #expect(store.accounts.count == 100)
    }
}
