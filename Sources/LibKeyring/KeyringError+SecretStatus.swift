import CSecret

extension KeyringError {
    /// The error for a CSecret status, or nil for `CSECRET_OK`.
    ///
    /// gnome-keyring answers an unlock prompt it cannot show (no display:
    /// gcr-prompter fails to start) exactly as one a person cancelled —
    /// Prompt.Completed with dismissed = true, within ~20 ms. So a dismissed
    /// prompt counts as `promptDismissed` only where a prompt could have been
    /// on screen (`promptCouldBeShown`), and as `locked` everywhere else:
    /// SSH sessions, cron, containers.
    init?(secretStatus: Int32, message: String, timeouts: KeyringTimeouts, promptCouldBeShown: Bool) {
        switch csecret_status(rawValue: UInt32(bitPattern: secretStatus)) {
        case CSECRET_OK: return nil
        case CSECRET_NOT_FOUND: self = .notFound
        case CSECRET_NO_SESSION_BUS: self = .noSessionBus(detail: message)
        case CSECRET_NO_SECRET_SERVICE: self = .noSecretService(detail: message)
        case CSECRET_NO_DEFAULT_KEYRING: self = .noDefaultKeyring
        case CSECRET_LOCKED: self = .locked
        case CSECRET_DISMISSED: self = promptCouldBeShown ? .promptDismissed : .locked
        case CSECRET_TIMED_OUT: self = .timedOut(after: timeouts.call, waitingForUnlock: false)
        case CSECRET_UNLOCK_TIMED_OUT: self = .timedOut(after: timeouts.unlockPrompt, waitingForUnlock: true)
        case CSECRET_NOT_LOADABLE: self = .libsecretUnavailable(detail: message)
        default: self = .other(detail: message)
        }
    }

    /// Whether a graphical session, where a keyring could show its unlock
    /// prompt, is named in `environment`.
    static func promptCouldBeShown(environment: [String: String]) -> Bool {
        ["DISPLAY", "WAYLAND_DISPLAY"].contains { !(environment[$0] ?? "").isEmpty }
    }
}
