/// Bounds that keep one client from exhausting the server.
public struct HTTPServerLimits: Sendable {
    /// Request line plus header fields; more → 431, then close.
    public var maxHeaderBytes = 16 * 1024
    /// A Content-Length above this → 413, answered without reading the body, then close.
    public var maxBodyBytes = 1 * 1024 * 1024
    /// Seconds a keep-alive connection may sit idle, and that a request may take to arrive.
    public var idleTimeout: Double = 30
    /// Seconds from a connection's opening, or from the first byte of a
    /// later request, to the end of that request's head; later → 408 (or,
    /// when nothing came at all, a silent close). Slowloris clients that
    /// trickle or never send their headers lose their connection this soon.
    public var headerTimeout: Double = 5
    /// Open connections beyond this are accepted, answered 503 and closed.
    public var maxConnections = 1024
    /// Open connections from one peer address beyond this are accepted,
    /// answered 429 and closed, so that one peer cannot take every
    /// connection. Behind a reverse proxy every client shares the proxy's
    /// address: raise it there (the proxy limits its own clients).
    public var maxConnectionsPerPeer = 64
    /// Event loops (threads that hold connections); nil: one per core.
    public var eventLoops: Int?
    /// Threads that run handlers, shared out among the loops: how many
    /// requests may wait for the database (or sleep) at once. 0: handlers
    /// run on the loops themselves (only for handlers that never wait).
    public var handlerThreads = 8

    public init() {}
}
