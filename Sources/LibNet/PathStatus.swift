/// Whether packets to the server can leave this machine, as far as the
/// kernel's routing table says. Not whether the server will answer.
public enum PathStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// A route exists (on at least one address family).
    case available
    /// No route on any address family tried.
    case unavailable
    /// The probe could not tell (e.g. no socket could be made).
    case unknown

    public var description: String { rawValue }
}
