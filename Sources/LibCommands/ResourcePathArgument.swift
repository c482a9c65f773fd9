import LibCLI
import LibClient

extension ResourcePath {
    /// A PATH argument: a usage error (exit 2) when it is not a resource path.
    static func argument(_ text: String) throws(UsageError) -> ResourcePath {
        do { return try ResourcePath(parsing: text) } catch { throw UsageError(error.message) }
    }
}
