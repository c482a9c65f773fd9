import LibCLI
import LibKeyring
import LibNet

/// Makes the HTTP transport a command talks to its server through.
public protocol TransportFactory: Sendable {
    func makeTransport(_ configuration: TransportConfiguration) -> any HTTPTransport
}

/// The real one: libcurl, loaded on first use.
public struct CurlTransportFactory: TransportFactory {
    public init() {}
    public func makeTransport(_ configuration: TransportConfiguration) -> any HTTPTransport {
        CurlTransport(configuration: configuration)
    }
}

/// The keyring that holds tokens: the Secret Service behind the kernel
/// keyring's cache, unless a test puts a fake here.
public enum TokenStoreKey: ServiceKey {
    public static let defaultValue: any TokenStore = KernelCachedTokenStore(backing: SecretServiceTokenStore())
}

public enum TransportFactoryKey: ServiceKey {
    public static let defaultValue: any TransportFactory = CurlTransportFactory()
}

/// NetworkManager as a failure's explanation asks it (portal, limited,
/// connecting): the system bus, read only after a request has failed.
public enum NetworkManagerKey: ServiceKey {
    public static let defaultValue: any NetworkManagerSource = SystemBusNetworkManager()
}

extension CommandContext {
    var tokenStore: any TokenStore { services[TokenStoreKey.self] }

    var networkManager: any NetworkManagerSource { services[NetworkManagerKey.self] }

    /// The user's explanation of a failed request, with NetworkManager's view
    /// when the failure may be the network's (every command, as push does).
    func diagnose(_ failure: TransportFailure, account: String?, pendingWrites: Int) -> FailureExplanation {
        FailureExplanation.diagnose(failure, account: account, pendingWrites: pendingWrites, networkManager: networkManager)
    }

    /// A transport with the environment's settings (`LIB_CA_BUNDLE`) and,
    /// when given, a total timeout for each request.
    func makeTransport(timeout: Double? = nil) -> any HTTPTransport {
        var configuration = TransportConfiguration.fromEnvironment(environment)
        configuration.traceLevel = verbosity
        if let timeout {
            configuration.totalTimeout = .milliseconds(Int64(timeout * 1000))
            configuration.connectTimeout = min(configuration.connectTimeout, configuration.totalTimeout)
        }
        return services[TransportFactoryKey.self].makeTransport(configuration)
    }
}
