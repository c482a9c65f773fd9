/// Settings for a `CurlTransport`.
public struct TransportConfiguration: Sendable, Equatable {
    /// How long to wait for a connection (DNS included).
    public var connectTimeout: Duration
    /// How long a whole request may take, connection included.
    public var totalTimeout: Duration
    /// A PEM file of CA certificates to trust instead of the system's, for
    /// self-hosted servers with a private CA or a self-signed certificate.
    /// Verification itself is never turned off.
    public var caBundlePath: String?
    public var userAgent: String
    /// The most bytes read from one answer's body; the transfer stops there
    /// and the request fails with `.answerTooLarge`, so memory and disk stay
    /// bounded whatever a peer sends.
    public var maxAnswerBytes: Int
    /// The proxy variables (`http_proxy`, `https_proxy`, `all_proxy`,
    /// `no_proxy` and their uppercase forms) the proxy is chosen from; see
    /// `ProxySetting`. Empty: direct connections.
    public var proxyEnvironment: [String: String]
    /// `-v`: 1 writes one line per request on standard error (`RequestTrace`);
    /// 2 adds libcurl's own trace. Secrets are redacted in both.
    public var traceLevel = 0

    /// The environment variable that names a CA bundle (documented in
    /// docs/NETWORK.md).
    public static let caBundleVariable = "LIB_CA_BUNDLE"
    /// The environment variable that changes `maxAnswerBytes` (documented
    /// in docs/NETWORK.md and the man page).
    public static let maxAnswerBytesVariable = "LIB_MAX_ANSWER_BYTES"
    /// 8 MiB: a page of 1000 books is ~150 KB, a book at most a few KB;
    /// far above what the server sends, far below what hurts.
    public static let defaultMaxAnswerBytes = 8 * 1024 * 1024
    static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
                                 ProxySetting.loopbackVariable]

    public init(
        connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30), caBundlePath: String? = nil,
        userAgent: String = "lib/1", maxAnswerBytes: Int = TransportConfiguration.defaultMaxAnswerBytes,
        proxyEnvironment: [String: String] = [:]
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.caBundlePath = caBundlePath
        self.userAgent = userAgent
        self.maxAnswerBytes = maxAnswerBytes
        self.proxyEnvironment = proxyEnvironment
    }

    /// The defaults, with `caBundlePath` from `LIB_CA_BUNDLE` when it is set
    /// and not empty, `maxAnswerBytes` from `LIB_MAX_ANSWER_BYTES` (a
    /// positive number of bytes, with an optional K or M suffix) and the
    /// proxy variables. An explicit per-account setting should override this.
    public static func fromEnvironment(_ environment: [String: String]) -> TransportConfiguration {
        var configuration = TransportConfiguration()
        if let path = environment[caBundleVariable], !path.isEmpty {
            configuration.caBundlePath = path
        }
        if let text = environment[maxAnswerBytesVariable], let limit = byteCount(text) {
            configuration.maxAnswerBytes = limit
        }
        configuration.proxyEnvironment = environment.filter { proxyVariables.contains($0.key) }
        return configuration
    }

    /// "65536", "64K", "8M" as bytes; nil when not a positive size.
    static func byteCount(_ text: String) -> Int? {
        var digits = Substring(text)
        var unit = 1
        if let last = digits.last, "kKmM".contains(last) {
            unit = "kK".contains(last) ? 1024 : 1024 * 1024
            digits = digits.dropLast()
        }
        guard let value = Int(digits), value > 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : bytes
    }
}
