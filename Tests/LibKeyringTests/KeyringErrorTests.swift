import CSecret
@testable import LibKeyring
import Testing

@Suite struct KeyringErrorTests {
    static let everyCase: [KeyringError] = [
        .notFound, .noSessionBus(detail: "d"), .noSecretService(detail: "d"), .noDefaultKeyring, .locked,
        .promptDismissed, .timedOut(after: .seconds(5), waitingForUnlock: false),
        .timedOut(after: .seconds(60), waitingForUnlock: true), .libsecretUnavailable(detail: "d"),
        .other(detail: "d"),
    ]

    @Test func everyMessageIsDistinctAndNeverBlamesTheToken() {
        let messages = Self.everyCase.map(\.description)
        #expect(Set(messages).count == messages.count)
        for message in messages {
            #expect(!message.lowercased().contains("invalid"), "\(message)")
            #expect(!message.lowercased().contains("expired"), "\(message)")
            #expect(!message.lowercased().contains("rejected"), "\(message)")
        }
    }

    @Test func messagesSayWhatToDo() {
        #expect(KeyringError.notFound.description.contains("lib login"))
        #expect(KeyringError.noSessionBus(detail: "x").description.contains("loginctl enable-linger"))
        // How cron gets a token without any bus (issue 49).
        #expect(KeyringError.noSessionBus(detail: "x").description.contains("`lib login --headless`"))
        #expect(KeyringError.noSecretService(detail: "x").description.contains("gnome-keyring"))
        #expect(KeyringError.locked.description.contains("--unlock"))
        #expect(KeyringError.promptDismissed.description.contains("Try again"))
        #expect(KeyringError.libsecretUnavailable(detail: "x").description.contains("apt install libsecret-1-0"))
    }

    @Test func timeoutsSayHowLong() {
        #expect(KeyringError.timedOut(after: .seconds(5), waitingForUnlock: false).description.contains("within 5 s"))
        #expect(KeyringError.timedOut(after: .milliseconds(1500), waitingForUnlock: false).description.contains("within 1.5 s"))
        #expect(KeyringError.timedOut(after: .seconds(60), waitingForUnlock: true).description.contains("unlock prompt"))
    }

    @Test func dismissedPromptIsLockedWithoutADisplay() {
        let dismissed = Int32(CSECRET_DISMISSED.rawValue)
        let timeouts = KeyringTimeouts()
        #expect(KeyringError(secretStatus: dismissed, message: "", timeouts: timeouts,
                             promptCouldBeShown: false) == .locked)
        #expect(KeyringError(secretStatus: dismissed, message: "", timeouts: timeouts,
                             promptCouldBeShown: true) == .promptDismissed)
        #expect(!KeyringError.promptCouldBeShown(environment: [:]))
        #expect(!KeyringError.promptCouldBeShown(environment: ["DISPLAY": ""]))
        #expect(KeyringError.promptCouldBeShown(environment: ["DISPLAY": ":0"]))
        #expect(KeyringError.promptCouldBeShown(environment: ["WAYLAND_DISPLAY": "wayland-0"]))
    }

    @Test func everyStatusMapsToItsOwnCase() {
        let timeouts = KeyringTimeouts(call: .seconds(2), unlockPrompt: .seconds(30))
        func map(_ status: csecret_status) -> KeyringError? {
            KeyringError(secretStatus: Int32(status.rawValue), message: "m", timeouts: timeouts, promptCouldBeShown: false)
        }
        #expect(map(CSECRET_OK) == nil)
        #expect(map(CSECRET_NOT_FOUND) == .notFound)
        #expect(map(CSECRET_NO_SESSION_BUS) == .noSessionBus(detail: "m"))
        #expect(map(CSECRET_NO_SECRET_SERVICE) == .noSecretService(detail: "m"))
        #expect(map(CSECRET_NO_DEFAULT_KEYRING) == .noDefaultKeyring)
        #expect(map(CSECRET_LOCKED) == .locked)
        #expect(map(CSECRET_TIMED_OUT) == .timedOut(after: .seconds(2), waitingForUnlock: false))
        #expect(map(CSECRET_UNLOCK_TIMED_OUT) == .timedOut(after: .seconds(30), waitingForUnlock: true))
        #expect(map(CSECRET_NOT_LOADABLE) == .libsecretUnavailable(detail: "m"))
        #expect(map(CSECRET_FAILED) == .other(detail: "m"))
    }
}
