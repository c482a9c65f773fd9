import LibBase

/// What `-q` keeps quiet: success, and a temporary failure (exit 75) that
/// heals by itself, unless the oldest write still pending has waited longer
/// than the threshold, so that a machine that never syncs is noticed.
/// Conflicts, rejections, authentication and other failures always print.
public struct QuietRule: Sendable, Equatable {
    /// Seconds a pending write may wait before a quiet temporary failure speaks.
    public let threshold: Double

    /// The environment variable that sets the threshold, as a duration (`6h`, `90m`, `3600`).
    public static let variable = "LIB_QUIET_AFTER"
    /// One day.
    public static let defaultThreshold = 86_400.0

    public init(threshold: Double = QuietRule.defaultThreshold) {
        self.threshold = threshold
    }

    /// The threshold from `LIB_QUIET_AFTER` (with `d` for days too), else one day.
    public init(environment: [String: String]) {
        guard var text = environment[Self.variable], !text.isEmpty else {
            self.init()
            return
        }
        var scale = 1.0
        if text.hasSuffix("d") {
            text.removeLast()
            scale = 86_400
        }
        self.init(threshold: SecondsValue.parse(text).map { $0 * scale } ?? Self.defaultThreshold)
    }

    /// Whether a problem with this exit code is kept quiet, given how long
    /// the oldest pending write has waited (nil: none pending).
    public func silences(_ code: ExitCode, oldestPendingAge: Double?) -> Bool {
        switch code {
        case .success: return true
        case .temporaryFailure: return (oldestPendingAge ?? 0) <= threshold
        case .failure, .usage, .attention, .authentication, .refused: return false
        }
    }
}
