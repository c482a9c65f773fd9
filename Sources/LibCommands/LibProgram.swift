import LibCLI
import LibKeyring
import LibNet
import LibBase

/// The two programs built from these commands: `lib` (static, on-device)
/// and `lib-online` (dynamic, everything). Each `main.swift` is one call.
public enum LibProgram {
    /// `lib`: runs what this device can do alone and hands every other
    /// command to `lib-online` (see `OnlineHelper`) before it starts. Its
    /// context has neither a keyring nor a network: a command placed here
    /// by mistake fails loudly instead of loading libcurl or libsecret into
    /// a static process.
    public static func runOnDevice() -> Never {
        StopSignals.unblock()
        let dispatcher = CommandDispatcher(registry: .lib, handler: LibCommandList.handler(named:))
        dispatcher.runAsMain(completionSource: CacheCompletionSource(), services: onDeviceServices())
    }

    private static func onDeviceServices() -> CommandServices {
        var services = CommandServices()
        services[ProgramRoleKey.self] = .onDevice(arguments: CommandLine.arguments)
        services[TokenStoreKey.self] = NoKeyringOnDevice()
        services[TransportFactoryKey.self] = NoNetworkOnDevice()
        return services
    }

    /// `lib-online`: every command, with the keyring and libcurl (both loaded on first use).
    public static func runOnline() -> Never {
        StopSignals.unblock()
        return CommandDispatcher(registry: .lib, handler: LibCommandList.handler(named:)).runAsMain(completionSource: CacheCompletionSource())
    }
}

/// Which program is running: `lib-online` (the default: in-process tests
/// run every command as it would) or `lib` with its command line, to hand
/// to the helper.
enum ProgramRole: Sendable {
    case online
    case onDevice(arguments: [String])
}

enum ProgramRoleKey: ServiceKey {
    static let defaultValue = ProgramRole.online
}

/// `lib`'s keyring: none (see `LibProgram.runOnDevice`).
struct NoKeyringOnDevice: TokenStore {
    private static let failure = KeyringError.libsecretUnavailable(
        detail: "internal error: this command ran in lib instead of \(OnlineHelper.name), which carries the keyring")
    func store(token: String, for account: KeyringAccount) throws(KeyringError) { throw Self.failure }
    func token(for account: KeyringAccount) throws(KeyringError) -> String { throw Self.failure }
    func deleteToken(for account: KeyringAccount) throws(KeyringError) { throw Self.failure }
}

/// `lib`'s network: none (see `LibProgram.runOnDevice`).
struct NoNetworkOnDevice: TransportFactory {
    struct Transport: HTTPTransport {
        func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse {
            throw TransportFailure(
                kind: .libcurlUnavailable(reason: "internal error: this command ran in lib instead of \(OnlineHelper.name), which carries the network code"),
                endpoint: ServerOrigin(requestURL: request.url) ?? ServerOrigin(scheme: "http", host: "", port: 0))
        }
    }
    func makeTransport(_ configuration: TransportConfiguration) -> any HTTPTransport { Transport() }
}
