/// The value an option was given on the command line, already checked
/// against its `ValueKind`.
public enum OptionValue: Sendable, Equatable {
    /// A flag that was given.
    case flag
    case text(String)
    /// A checked, non-negative number of seconds.
    case seconds(Double)
    /// How many times a counted flag (`-vv`) was given.
    case count(Int)
}
