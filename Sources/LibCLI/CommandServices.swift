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
    // A few entries at most: a list, searched in order. (A dictionary here
    // made the runtime look up ObjectIdentifier's Hashable conformance at
    // every start, a scan of every conformance in the executable.)
    private var values: [(key: ObjectIdentifier, value: any Sendable)] = []

    public init() {}

    public subscript<Key: ServiceKey>(key: Key.Type) -> Key.Value {
        get {
            let id = ObjectIdentifier(key)
            return values.first { $0.key == id }?.value as? Key.Value ?? Key.defaultValue
        }
        set {
            let id = ObjectIdentifier(key)
            values.removeAll { $0.key == id }
            values.append((id, newValue))
        }
    }
}

/// Names one service in `CommandServices` and what to use when none was set.
public protocol ServiceKey {
    associatedtype Value: Sendable
    static var defaultValue: Value { get }
}
