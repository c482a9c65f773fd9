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

    /// The environment variable that names a CA bundle (documented in
    /// docs/NETWORK.md).
    public static let caBundleVariable = "LIB_CA_BUNDLE"

    public init(
        connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30), caBundlePath: String? = nil,
        userAgent: String = "lib/1"
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.caBundlePath = caBundlePath
        self.userAgent = userAgent
    }

    /// The defaults, with `caBundlePath` from `LIB_CA_BUNDLE` when it is set
    /// and not empty. An explicit per-account setting should override this.
    public static func fromEnvironment(_ environment: [String: String]) -> TransportConfiguration {
        var configuration = TransportConfiguration()
        if let path = environment[caBundleVariable], !path.isEmpty {
            configuration.caBundlePath = path
        }
        return configuration
    }
}
