/// The process exit statuses of `lib`, as DESIGN.md's "Exit codes" table
/// defines them. Every command ends with one of these.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// Done (for `get`, also when it fell back to the cache and said so).
    case success = 0
    /// A failure not covered by a more specific code.
    case failure = 1
    /// The command line was wrong: an unknown command, option or argument.
    case usage = 2
    /// Conflicts or rejected writes remain (`push`, `resolve`).
    case attention = 3
    /// Not signed in, token rejected, or keyring absent, locked or refused.
    case authentication = 4
    /// `push`: the mass-change guard refused writes that would delete or
    /// blank too many books; nothing was sent (`push --force` if meant).
    case refused = 5
    /// Offline, server unreachable, 5xx or 429: nothing lost, try later
    /// (`EX_TEMPFAIL` from sysexits.h).
    case temporaryFailure = 75

    /// What the code means, in the words the help and the man page use.
    public var meaning: String {
        switch self {
        case .success: "Done."
        case .failure: "Failure not covered below."
        case .usage: "Usage error: the message names the flag or argument and suggests near matches."
        case .attention: "Attention needed: conflicts or rejected writes remain."
        case .authentication: "Authentication needed: not signed in, token rejected (401), or keyring absent, locked or refused."
        case .refused: "Refused: the push would delete or blank too many books; nothing was sent (lib push --force if you mean it)."
        case .temporaryFailure: "Temporary failure: offline, server unreachable, 5xx or 429. Nothing is lost; try again later."
        }
    }
}
