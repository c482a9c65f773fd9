import LibBase

/// An error from another module that knows how it should be reported.
/// Commands conform their domain errors (network, keyring, store) to this so
/// that `ErrorReport` maps them to exit codes without knowing their types.
public protocol ReportableError: Error {
    /// The explanation, without the `lib: ` prefix.
    var message: String { get }
    var exitCode: ExitCode { get }
    /// A short, stable word for scripts (`offline`, `keyring-locked`), given
    /// as `reason` in JSON errors; nil: the exit code's own word.
    var reason: String? { get }
}

extension ReportableError {
    public var reason: String? { nil }
}
