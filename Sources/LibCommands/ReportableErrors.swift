import LibAccounts
import LibCLI
import LibKeyring
import LibStore

/// How other modules' errors read and exit when a command lets them through.
extension KeyringError: ReportableError {
    /// Every keyring problem is "authentication needed" (DESIGN.md): never an invalid token.
    public var message: String { description }
    public var exitCode: ExitCode { .authentication }
}

extension AccountSelection.Failure: ReportableError {
    public var message: String { description }
    public var exitCode: ExitCode {
        switch self {
        case .noAccounts, .noCurrent: return .authentication
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
        if isCorrupt { return "\(description). Move the file away to start that account's store afresh." }
        return description
    }
    public var exitCode: ExitCode { .failure }
}

extension MigrationError: ReportableError {
    public var message: String { description }
    public var exitCode: ExitCode { .failure }
}
