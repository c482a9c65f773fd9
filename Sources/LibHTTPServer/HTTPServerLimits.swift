/// Bounds that keep one client from exhausting the server.
public struct HTTPServerLimits: Sendable {
    /// Request line plus header fields; more → 431, then close.
    public var maxHeaderBytes = 16 * 1024
    /// A Content-Length above this → 413, answered without reading the body, then close.
    public var maxBodyBytes = 1 * 1024 * 1024
    /// Seconds a keep-alive connection may sit idle, and that a request may take to arrive.
    public var idleTimeout: Double = 30
    /// Open connections beyond this are accepted, answered 503 and closed.
    public var maxConnections = 1024

    public init() {}
}
