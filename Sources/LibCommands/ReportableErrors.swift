import LibAccounts
import LibCLI
import LibKeyring
import LibStore
import LibBase

/// How other modules' errors read and exit when a command lets them through.
extension KeyringError: ReportableError {
    /// Every keyring problem is "authentication needed" (DESIGN.md): never an invalid token.
    public var message: String { description }
    public var exitCode: ExitCode { .authentication }
    public var reason: String? {
        switch self {
        case .notFound: "keyring-no-token"
        case .noSessionBus: "keyring-no-bus"
        case .noSecretService: "keyring-no-service"
        case .noDefaultKeyring: "keyring-no-default"
        case .locked: "keyring-locked"
        case .promptDismissed: "keyring-prompt-dismissed"
        case .timedOut: "keyring-timeout"
        case .libsecretUnavailable: "keyring-unavailable"
        case .persistentKeyringUnavailable: "keyring-no-persistent"
        case .other: "keyring-failed"
        }
    }
}

extension AccountSelection.Failure: ReportableError {
    public var message: String { description }
    public var exitCode: ExitCode {
        switch self {
        case .noAccounts, .noCurrent, .ruleUnmatched: return .authentication
        case .notFound, .ambiguous: return .usage
        }
    }
}

extension AccountFileError: ReportableError {
    public var message: String { description }
    public var exitCode: ExitCode { .failure }
}

extension DatabaseError: ReportableError {
    public var message: String {
        if isDiskFull || path.map(DiskSpace.isExhausted(near:)) == true {
            return "\(description). The disk is full: free some space and try again; nothing was changed."
        }
        if isReadOnly { return "\(description). Check the file's permissions; nothing was changed." }
        if isCorrupt, let path {
            return "\(description). It may hold writes not yet sent: keep it (`mv \(path) \(path).damaged`, not rm), "
                + "save what can be read with `sqlite3 \(path).damaged .recover > \(path).recovered.sql`, "
                + "and lib starts that account's store afresh at the next command."
        }
        if isCorrupt { return "\(description). It may hold writes not yet sent: move the file away rather than delete it." }
        return description
    }
    public var exitCode: ExitCode { .failure }
}

extension MigrationError: ReportableError {
    public var message: String { description }
    public var exitCode: ExitCode { .failure }
}
