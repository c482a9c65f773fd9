import Synchronization
import LibBase

/// The HTTP transport over libcurl. One instance keeps one libcurl handle,
/// and so one open connection, across all its requests (a push sends its
/// writes over one connection). libcurl is loaded on the first `send`, not
/// when the transport is made.
///
/// Proxies come from the usual environment variables (`http_proxy`,
/// `https_proxy`, `no_proxy`...), as libcurl reads them by default. TLS
/// certificates and host names are always verified. Redirects are not
/// followed. Tracing (`-v`, `traceLevel`) writes one line per request and,
/// at level 2, libcurl's trace with Authorization and cookies redacted, so
/// no token is ever written anywhere.
public final class CurlTransport: HTTPTransport {
    public let configuration: TransportConfiguration
    private let handle = Mutex<CurlEasyHandle?>(nil)

    public init(configuration: TransportConfiguration) {
        self.configuration = configuration
    }

    /// Sends requests one at a time: concurrent callers wait for each other.
    public func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse {
        guard let endpoint = request.endpoint else {
            throw TransportFailure(
                kind: .invalidRequest(reason: "not an http(s) URL"),
                endpoint: ServerOrigin(scheme: "", host: "", port: 0))
        }
        return try handle.withLock { (handle: inout CurlEasyHandle?) throws(TransportFailure) -> HTTPResponse in
            if handle == nil {
                handle = try CurlEasyHandle(for: endpoint)
            }
            guard let current = handle else {
                throw TransportFailure(kind: .other(reason: "no libcurl handle"), endpoint: endpoint)
            }
            return try current.perform(request, endpoint: endpoint, configuration: configuration)
        }
    }
}
