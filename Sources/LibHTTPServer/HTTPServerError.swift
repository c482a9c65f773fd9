/// Why the server could not start listening.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host is not an IPv4 or IPv6 literal nor `localhost`, or the port is out of range.
    case invalidAddress(address: String, reason: String)
    /// A system call failed: `operation` is `socket`, `bind` or `listen`.
    case systemCallFailed(address: String, operation: String, errno: Int32, reason: String)
    /// `bind` was called on a server that is already listening.
    case alreadyBound(address: String)
    /// `bind` was called after `stop()`.
    case stopped

    public var description: String {
        switch self {
        case let .invalidAddress(address, reason):
            "cannot listen on \(address): \(reason)"
        case let .systemCallFailed(address, operation, code, reason):
            "cannot listen on \(address): \(operation) failed: \(reason) (errno \(code))"
        case let .alreadyBound(address):
            "cannot listen on \(address): the server is already listening"
        case .stopped:
            "cannot listen: the server has been stopped"
        }
    }
}
