@testable import LibKeyring
import Synchronization
import Testing

/// The cache in front of a store of record, against the real kernel
/// keyring (this test run's session keyring, scripts/with-test-session.sh)
/// and an in-memory store standing for the Secret Service. Each test uses
/// origins of its own, so that tests running side by side never meet.
@Suite struct KernelCachedTokenStoreTests {
    private func account(_ test: String, user: String = "1", stamp: String = "s1", headless: Bool = false) -> KeyringAccount {
        KeyringAccount(server: "http://\(test).cache.test:\(UInt16.random(in: 1000...60000))", userID: user, userName: "alice",
                       cacheStamp: stamp, headless: headless)
    }

    private func sameAccount(_ account: KeyringAccount, stamp: String? = nil, headless: Bool? = nil, name: String? = nil) -> KeyringAccount {
        KeyringAccount(server: account.server, userID: account.userID, userName: name ?? account.userName,
                       cacheStamp: stamp ?? account.cacheStamp, headless: headless ?? account.headless)
    }

    private func cachedKey(_ account: KeyringAccount) -> Int32? {
        try? KernelKeyring.request(account.kernelKeyDescription)
    }

    @Test func aMissReadsTheStoreOnceAndAHitNeverAsksIt() throws {
        let record = InMemoryTokenStore()
        let store = KernelCachedTokenStore(backing: record, cacheSeconds: 60)
        let alice = account("hit")
        try record.store(token: "t-1", for: alice)
        let first = try store.lookUp(for: alice)
        #expect(first.token == "t-1" && first.source == .secretService(cachedFor: 60))
        // The store of record now fails: the cache answers anyway.
        record.fail(with: .timedOut(after: .milliseconds(900), waitingForUnlock: false))
        let second = try store.lookUp(for: alice)
        #expect(second.token == "t-1")
        guard case .sessionCache(let left) = second.source else { Issue.record("\(second.source)"); return }
        #expect((58...60).contains(left))
        store.forgetCachedCopies(for: alice)
        #expect(cachedKey(alice) == nil)
        #expect(throws: KeyringError.timedOut(after: .milliseconds(900), waitingForUnlock: false)) { try store.lookUp(for: alice) }
    }

    /// The copy's time-out counts on the clock the store is given: past it,
    /// the store of record is asked again.
    @Test func aCopyPastItsTimeOutOnTheGivenClockIsNotUsed() throws {
        let record = InMemoryTokenStore()
        let clock = Mutex(1_000_000)
        let store = KernelCachedTokenStore(backing: record, cacheSeconds: 60, now: { clock.withLock { $0 } })
        let alice = account("clock")
        try record.store(token: "t-1", for: alice)
        #expect(try store.lookUp(for: alice).source == .secretService(cachedFor: 60))
        clock.withLock { $0 += 59 }
        #expect(try store.lookUp(for: alice).source == .sessionCache(secondsLeft: 1))
        clock.withLock { $0 += 1 }
        #expect(try store.lookUp(for: alice).source == .secretService(cachedFor: 60), "expired: asked the store of record")
        store.forgetCachedCopies(for: alice)
    }

    @Test func aCopyFromAnotherLoginIsNeverUsedAndIsRemoved() throws {
        let record = InMemoryTokenStore()
        let store = KernelCachedTokenStore(backing: record, cacheSeconds: 60)
        let before = account("stamp", stamp: "old")
        try store.store(token: "old-token", for: before)
        #expect(cachedKey(before) != nil)
        let after = sameAccount(before, stamp: "new")
        try record.store(token: "new-token", for: after)
        let found = try store.lookUp(for: after)
        #expect(found.token == "new-token" && found.source == .secretService(cachedFor: 60))
        #expect(try store.lookUp(for: after).source != .secretService(cachedFor: 60), "refilled under the new stamp")
    }

    @Test func otherAccountsAndServersHaveKeysOfTheirOwn() throws {
        let record = InMemoryTokenStore()
        let store = KernelCachedTokenStore(backing: record, cacheSeconds: 60)
        let alice = account("ids", user: "u-1")
        let bob = KeyringAccount(server: alice.server, userID: "u-2", userName: "bob", cacheStamp: "s1")
        let aliceElsewhere = KeyringAccount(server: alice.server + "1", userID: "u-1", userName: "alice", cacheStamp: "s1")
        try store.store(token: "a", for: alice)
        try store.store(token: "b", for: bob)
        try store.store(token: "c", for: aliceElsewhere)
        record.fail(with: .locked)
        #expect(try store.token(for: alice) == "a" && store.token(for: bob) == "b" && store.token(for: aliceElsewhere) == "c")
        // A new display name is the same identity, the same key.
        #expect(try store.token(for: sameAccount(alice, name: "alicia")) == "a")
        #expect(Set([cachedKey(alice), cachedKey(bob), cachedKey(aliceElsewhere)]).count == 3)
        record.fail(with: nil)
        try store.deleteToken(for: bob)
        #expect(cachedKey(bob) == nil && cachedKey(alice) != nil)
        for other in [alice, aliceElsewhere] { store.forgetCachedCopies(for: other) }
    }

    @Test func withoutACacheEveryLookUpAsksTheStore() throws {
        let record = InMemoryTokenStore()
        let store = KernelCachedTokenStore(backing: record, cacheSeconds: 0)
        let alice = account("off")
        try store.store(token: "t", for: alice)
        #expect(cachedKey(alice) == nil)
        #expect(try store.lookUp(for: alice).source == .secretService(cachedFor: nil))
    }

    @Test func theHeadlessOptInKeepsACopyInThePersistentKeyringUntilALoginWithout() throws {
        let record = InMemoryTokenStore()
        let store = KernelCachedTokenStore(backing: record, cacheSeconds: 60)
        let alice = account("headless", headless: true)
        guard (try? KernelKeyring.persistentKeyring()) != nil else {
            // This kernel has no persistent keyrings: login --headless says so.
            #expect(throws: KeyringError.self) { try store.store(token: "t", for: alice) }
            return
        }
        try store.store(token: "t", for: alice)
        defer { store.forgetCachedCopies(for: alice) }
        let persistent = try KernelKeyring.persistentKeyring()
        #expect((try? KernelKeyring.search(alice.kernelKeyDescription, in: persistent)) != nil)
        // Without the session's copy (as in cron), the persistent one answers, the store is not asked.
        let session = try KernelKeyring.sessionKeyring()
        KernelKeyring.invalidate(try KernelKeyring.search(alice.kernelKeyDescription, in: session))
        #expect((try? KernelKeyring.search(alice.kernelKeyDescription, in: session)) == nil)
        record.fail(with: .noSessionBus(detail: "none"))
        let found = try store.lookUp(for: alice)
        #expect(found.token == "t")
        guard case .persistentKeyring = found.source else { Issue.record("\(found.source)"); return }
        record.fail(with: nil)
        // A login without the opt-in removes the copy.
        try store.store(token: "t2", for: sameAccount(alice, headless: false))
        #expect((try? KernelKeyring.search(alice.kernelKeyDescription, in: persistent)) == nil)
    }

    @Test func thePayloadNamesItsFormatAndRefusesAnythingElse() {
        let alice = KeyringAccount(server: "http://p.test", userID: "1", userName: "alice", cacheStamp: "abc")
        let bytes = KernelCachedTokenStore.payload("to\nken", alice, expires: 42)
        let parsed = KernelCachedTokenStore.parse(bytes)
        #expect(parsed?.stamp == "abc" && parsed?.expires == 42 && parsed?.token == "to\nken")
        #expect(KernelCachedTokenStore.parse(Array("just-a-token".utf8)) == nil)
        #expect(KernelCachedTokenStore.parse(Array("lib-token-cache 1\nabc\n42\n".utf8)) == nil, "no empty token")
        #expect(alice.kernelKeyDescription == "lib:token:http://p.test#1")
    }
}
