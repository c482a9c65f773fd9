/// Sends HTTP requests. Commands depend on this protocol, so that tests can
/// give them a fake; `CurlTransport` is the real one.
///
/// Every HTTP status comes back as a response (the caller decides what 412
/// or 404 mean); `TransportFailure(response:endpoint:)` says which statuses
/// are failures. Only outcomes without a usable response throw.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for the complete response, on the calling
    /// thread.
    func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse
}
