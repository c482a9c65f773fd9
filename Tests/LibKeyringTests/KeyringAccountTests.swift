@testable import LibKeyring
import Testing

@Suite struct KeyringAccountTests {
    @Test func identityIsOriginAndUserID() {
        let alice = KeyringAccount(server: "http://127.0.0.1:8080", userID: "u1", userName: "alice")
        #expect(alice == KeyringAccount(server: "http://127.0.0.1:8080", userID: "u1", userName: "alicia"))
        #expect(alice != KeyringAccount(server: "http://127.0.0.1:8081", userID: "u1", userName: "alice"))
        #expect(alice != KeyringAccount(server: "http://127.0.0.1:8080", userID: "u2", userName: "alice"))
        #expect(Set([alice, KeyringAccount(server: "http://127.0.0.1:8080", userID: "u1", userName: "x")]).count == 1)
    }

    @Test func labelNamesUserAndHost() {
        #expect(KeyringAccount(server: "http://127.0.0.1:8080", userID: "u1", userName: "alice").keyringLabel
            == "lib token for alice@127.0.0.1:8080")
        #expect(KeyringAccount(server: "https://books.example/", userID: "7", userName: "bob").description
            == "bob@books.example")
    }
}
