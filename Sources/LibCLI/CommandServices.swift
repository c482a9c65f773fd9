/// The factories commands get their collaborators from: the account store,
/// the keyring, the HTTP transport. LibCLI does not know those modules, so
/// each is added by the module that provides it, as a `ServiceKey` with a
/// default, and read with `context.services[Key.self]` (usually behind a
/// computed property on `CommandContext`). Tests put fakes in the same place.
///
///     enum TransportKey: ServiceKey {
///         static let defaultValue: any HTTPTransportFactory = CurlTransportFactory()
///     }
///     extension CommandContext {
///         var transport: any HTTPTransportFactory { services[TransportKey.self] }
///     }
public struct CommandServices: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    public init() {}

    public subscript<Key: ServiceKey>(key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}

/// Names one service in `CommandServices` and what to use when none was set.
public protocol ServiceKey {
    associatedtype Value: Sendable
    static var defaultValue: Value { get }
}
