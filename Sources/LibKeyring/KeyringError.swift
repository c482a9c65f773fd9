#if canImport(Glibc)
import Glibc
#endif

/// Why the keyring could not store, find or delete a token. Each case has a
/// message (`description`) that says what happened and what to do; none
/// says or suggests that the token is invalid, and none contains the token.
///
/// DESIGN.md maps every case to exit code 4 (authentication needed).
public enum KeyringError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The keyring has no token for the account.
    case notFound
    /// No D-Bus session bus: `DBUS_SESSION_BUS_ADDRESS` is unset and there is
    /// no bus socket in the runtime directory, or the bus does not answer at
    /// its address. `detail` is GLib's message.
    case noSessionBus(detail: String)
    /// The session bus has no Secret Service (org.freedesktop.secrets) and
    /// cannot start one. `detail` is the bus's message.
    case noSecretService(detail: String)
    /// The Secret Service has no default keyring to keep tokens in.
    case noDefaultKeyring
    /// The keyring is locked and could not be unlocked: no unlock prompt
    /// can be shown here (no display), or the service refused.
    case locked
    /// Someone dismissed the keyring's unlock prompt.
    case promptDismissed
    /// The keyring did not answer within `after`; `waitingForUnlock` when it
    /// was the unlock prompt that nobody answered.
    case timedOut(after: Duration, waitingForUnlock: Bool)
    /// libsecret is not installed or could not be loaded. `detail` is the
    /// dynamic loader's message.
    case libsecretUnavailable(detail: String)
    /// `lib login --headless` could not keep the token in the user's
    /// persistent keyring (KEYCTL_GET_PERSISTENT): the kernel lacks it
    /// (CONFIG_PERSISTENT_KEYRINGS) or refused.
    case persistentKeyringUnavailable(errno: Int32)
    /// Any other keyring failure; `detail` is GLib's message.
    case other(detail: String)

    public var description: String {
        switch self {
        case .notFound:
            return "No token for this account in the keyring. Sign in again with `lib login`."
        case .noSessionBus(let detail):
            return """
                Can't reach the keyring: there is no D-Bus session bus (\(detail)). \
                Run lib in a desktop or SSH login session, or start one with \
                `dbus-run-session -- $SHELL`. For cron, sign in once from a desktop \
                session with `lib login --headless` (cron then finds the token in the \
                kernel's persistent keyring), or enable lingering \
                (`loginctl enable-linger $USER`) so that /run/user/$UID/bus exists.
                """
        case .noSecretService(let detail):
            return """
                Can't reach the keyring: no Secret Service is running on the session bus \
                (\(detail)). Install and start one, e.g. `apt install gnome-keyring`, then \
                unlock it with `gnome-keyring-daemon --unlock --components=secrets` \
                (reads the keyring password on stdin).
                """
        case .noDefaultKeyring:
            return """
                The keyring service has no default keyring to keep the token in. \
                Create one: log in to the desktop once, or run \
                `gnome-keyring-daemon --replace --unlock --components=secrets` with a new \
                keyring password on stdin.
                """
        case .locked:
            return """
                The keyring is locked, and no unlock prompt can be shown here. \
                Unlock it, then try again: log in to the desktop, or run \
                `gnome-keyring-daemon --replace --unlock --components=secrets` with the \
                keyring password on stdin.
                """
        case .promptDismissed:
            return """
                The keyring's unlock prompt was dismissed, so the keyring stayed locked. \
                Try again and unlock the keyring when it asks.
                """
        case .timedOut(let after, let waitingForUnlock):
            if waitingForUnlock {
                return """
                    The keyring stayed locked: its unlock prompt was not answered within \
                    \(Self.seconds(after)). Try again and unlock the keyring when it asks.
                    """
            }
            return """
                The Secret Service keyring (org.freedesktop.secrets on the session bus) \
                did not answer within \(Self.seconds(after)). The keyring daemon (e.g. \
                gnome-keyring-daemon) may be stuck: restart it \
                (`gnome-keyring-daemon --replace --unlock --components=secrets` with the \
                keyring password on stdin) or log in again, then try again.
                """
        case .libsecretUnavailable(let detail):
            return """
                Can't use the keyring: libsecret could not be loaded (\(detail)). \
                Install it: `apt install libsecret-1-0 gnome-keyring`.
                """
        case .persistentKeyringUnavailable(let errno):
            return """
                Can't keep the token in the kernel's persistent keyring for headless use \
                (keyctl get_persistent: \(String(cString: strerror(errno)))): this kernel \
                lacks persistent keyrings or refused. Sign in without --headless; cron then \
                needs the Secret Service (see docs/KEYRING.md).
                """
        case .other(let detail):
            return "The keyring failed: \(detail)."
        }
    }

    /// "5 s", "0.5 s".
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let tenths = attoseconds / 100_000_000_000_000_000
        return tenths == 0 ? "\(seconds) s" : "\(seconds).\(tenths) s"
    }
}
