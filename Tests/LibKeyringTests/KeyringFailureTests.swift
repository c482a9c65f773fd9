import Foundation
import Testing
import TestSupport

/// Each way the keyring can be out of reach, set up for real (buses,
/// daemons, a locked keyring, a hung keyring) and observed through
/// `lib-keyring-check` running in that environment.
@Suite struct KeyringFailureTests {
    let server = "http://127.0.0.1:8080"

    @Test func busAddressWithoutASocketIsNoSessionBus() throws {
        let directory = try TemporaryDirectory("lib-keyring")
        let run = try KeyringCheckTool.run(
            ["lookup", server, "u1"],
            environment: ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory.file("no-bus"))"])
        #expect(run.result.status == 4, "\(run)")
        #expect(run.errorKind == "no-session-bus", "\(run)")
        #expect(run.result.stderr.contains("no D-Bus session bus"), "\(run)")
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/run/user/\(getuid())/bus"),
                   "this machine has a real user bus, which the fallback would find"))
    func noBusVariableAndNoRuntimeBusIsNoSessionBus() throws {
        let directory = try TemporaryDirectory("lib-keyring")
        let run = try KeyringCheckTool.run(
            ["lookup", server, "u1"], environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": directory.path])
        #expect(run.result.status == 4, "\(run)")
        #expect(run.errorKind == "no-session-bus", "\(run)")
    }

    @Test func busWithoutSecretServiceIsNoSecretService() throws {
        let bus = try PrivateSessionBus(.none)
        defer { bus.stop() }
        for command in ["lookup", "delete"] {
            let run = try KeyringCheckTool.run([command, server, "u1"], environment: bus.environment())
            #expect(run.errorKind == "no-secret-service", "\(run)")
            #expect(run.result.stderr.contains("org.freedesktop.secrets"), "\(run)")
        }
        let store = try KeyringCheckTool.run(["store", server, "u1"], environment: bus.environment(), stdin: "t-1\n")
        #expect(store.errorKind == "no-secret-service", "\(store)")
    }

    @Test func failedActivationIsNoSecretService() throws {
        let bus = try PrivateSessionBus(.failingActivation)
        defer { bus.stop() }
        let run = try KeyringCheckTool.run(["lookup", server, "u1"], environment: bus.environment())
        #expect(run.errorKind == "no-secret-service", "\(run)")
        #expect(run.result.stderr.contains("exited"), "\(run)")
    }

    @Test func keyringWithoutCollectionsHasNoDefaultKeyring() throws {
        let bus = try PrivateSessionBus(.keyringWithoutCollections)
        defer { bus.stop() }
        let store = try KeyringCheckTool.run(["store", server, "u1"], environment: bus.environment(), stdin: "t-1\n")
        #expect(store.errorKind == "no-default-keyring", "\(store)")
        let lookup = try KeyringCheckTool.run(["lookup", server, "u1"], environment: bus.environment())
        #expect(lookup.errorKind == "not-found", "\(lookup)")
    }

    @Test func lockedKeyringIsLockedNotDismissedNorNotFound() throws {
        let password = "keyring-password"
        let bus = try PrivateSessionBus(.unlockedKeyring(password: password))
        defer { bus.stop() }
        let token = "secret-token-\(UUID().uuidString)"
        let stored = try KeyringCheckTool.run(["--timeout", "30", "store", server, "u1", "alice"], environment: bus.environment(), stdin: token + "\n")
        try #require(stored.succeeded, "\(stored)")
        try bus.lockLoginKeyring()

        // Without a display, gnome-keyring's prompt fails at once and comes
        // back "dismissed"; that is reported as locked, with the fix. A call
        // that waited for the prompt instead would end "unlock-timed-out"
        // after the 60 s unlock deadline; the 30 s call deadline leaves a
        // loaded machine room to answer.
        for command in ["lookup", "delete", "store"] {
            let run = try KeyringCheckTool.run(
                ["--timeout", "30", "--unlock-timeout", "60", command, server, "u1", "alice"], environment: bus.environment(),
                stdin: "other-token\n")
            #expect(run.result.status == 4, "\(run)")
            #expect(run.errorKind == "locked", "\(run)")
            #expect(run.result.stderr.contains("gnome-keyring-daemon --replace --unlock"), "\(run)")
            #expect(!run.result.stderr.contains(token) && !run.result.stdout.contains(token), "\(run)")
            #expect(run.seconds < 30, "a prompt that cannot be shown must not wait: \(run)")
        }
        // Where a prompt could have been shown, the same answer means someone dismissed it.
        let withDisplay = try KeyringCheckTool.run(
            ["--timeout", "30", "lookup", server, "u1"], environment: bus.environment(adding: ["DISPLAY": ":99"]))
        #expect(withDisplay.errorKind == "prompt-dismissed", "\(withDisplay)")

        // The fix the message gives works, and the token survived.
        try bus.unlockLoginKeyring(password: password)
        let unlocked = try KeyringCheckTool.run(["--timeout", "30", "lookup", server, "u1"], environment: bus.environment())
        #expect(unlocked.succeeded && unlocked.output == token, "\(unlocked)")
    }

    @Test func hungKeyringTimesOut() throws {
        let bus = try PrivateSessionBus(.unlockedKeyring(password: "pw"))
        defer { bus.stop() }
        let stored = try KeyringCheckTool.run(["store", server, "u1"], environment: bus.environment(), stdin: "t-1\n")
        try #require(stored.succeeded, "\(stored)")
        let keyring = try bus.keyringPID()
        kill(keyring, SIGSTOP)
        defer { kill(keyring, SIGCONT) }

        for command in ["lookup", "store", "delete"] {
            let run = try KeyringCheckTool.run(
                ["--timeout", "1", command, server, "u1"], environment: bus.environment(), stdin: "t-2\n")
            #expect(run.result.status == 4, "\(run)")
            #expect(run.errorKind == "timed-out", "\(run)")
            #expect(run.result.stderr.contains("did not answer within 1 s"), "\(run)")
            // At least the deadline; the upper bound only tells a deadline from none (a stopped daemon never answers).
            #expect(run.seconds >= 1 && run.seconds < 20, "\(run)")
        }
    }

    @Test func unansweredUnlockPromptTimesOutAsSuch() throws {
        let bus = try PrivateSessionBus(.keyringWithSilentPrompter(password: "pw"))
        defer { bus.stop() }
        let stored = try KeyringCheckTool.run(["store", server, "u1"], environment: bus.environment(), stdin: "t-1\n")
        try #require(stored.succeeded, "\(stored)")
        try bus.lockLoginKeyring()
        let run = try KeyringCheckTool.run(
            ["--timeout", "5", "--unlock-timeout", "1", "lookup", server, "u1"], environment: bus.environment())
        #expect(run.errorKind == "unlock-timed-out", "\(run)")
        #expect(run.result.stderr.contains("not answered within 1 s"), "\(run)")
        #expect(run.seconds >= 1 && run.seconds < 20, "\(run)")
    }

    @Test func busThatNeverAnswersTimesOut() throws {
        let directory = try TemporaryDirectory("lib-keyring")
        let listener = try SilentUnixListener(path: directory.file("bus"))
        defer { listener.close() }
        let run = try KeyringCheckTool.run(
            ["--timeout", "1", "lookup", server, "u1"],
            environment: ["PATH": "/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(listener.path)"])
        #expect(run.errorKind == "timed-out", "\(run)")
        #expect(run.seconds >= 1 && run.seconds < 20, "\(run)")
    }

    @Test func cronFindsTheBusInTheRuntimeDirectory() throws {
        let bus = try PrivateSessionBus(.unlockedKeyring(password: "pw"))
        defer { bus.stop() }
        let cron = bus.environment(busVariable: false)
        #expect(cron["DBUS_SESSION_BUS_ADDRESS"] == nil)
        let stored = try KeyringCheckTool.run(["store", server, "u7", "carol"], environment: cron, stdin: "cron-token\n")
        #expect(stored.succeeded, "\(stored)")
        let found = try KeyringCheckTool.run(["lookup", server, "u7"], environment: bus.environment())
        #expect(found.output == "cron-token", "\(found)")
    }

    @Test func missingLibsecretIsReportedAsSuch() throws {
        let bus = try PrivateSessionBus(.none)
        defer { bus.stop() }
        let run = try KeyringCheckTool.run(
            ["--library", "libsecret-missing.so.0", "lookup", server, "u1"], environment: bus.environment())
        #expect(run.result.status == 4, "\(run)")
        #expect(run.errorKind == "libsecret-unavailable", "\(run)")
        #expect(run.result.stderr.contains("libsecret-missing.so.0"), "\(run)")
    }
}
