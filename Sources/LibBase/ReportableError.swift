/// An error that knows how it should be reported: `CommandFailure`, and
/// the domain errors of other modules (network, keyring, store) that
/// commands conform, so that one report maps them all to words and exit
/// codes without knowing their types.
public protocol ReportableError: Error {
    /// The explanation, without the `lib: ` prefix.
    var message: String { get }
    var exitCode: ExitCode { get }
    /// A short, stable word for scripts (`offline`, `keyring-locked`), given
    /// as `reason` in JSON errors; nil: the exit code's own word.
    var reason: String? { get }
    /// The account the message names, when it names one.
    var account: String? { get }
}

extension ReportableError {
    public var reason: String? { nil }
    public var account: String? { nil }
}

extension CommandFailure: ReportableError {
    /// Any error as a failure to report: a reportable one as it reports
    /// itself, any other in its own words, exit 1.
    public init(reporting error: any Error) {
        if let failure = error as? CommandFailure {
            self = failure
        } else if let error = error as? any ReportableError {
            self.init(error.message, exitCode: error.exitCode, reason: error.reason, naming: error.account)
        } else {
            self.init(String(describing: error))
        }
    }
}
