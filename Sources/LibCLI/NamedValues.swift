/// Values by name, in the order they were first set: a command line's
/// options (by long name) and arguments (by placeholder). A handful at most,
/// searched in order. A `Dictionary` here had the runtime look up String's
/// Hashable conformance (a scan of every conformance in the executable) on
/// every command line, `lib --version` included.
public struct NamedValues<Value: Sendable>: Sendable {
    private var entries: [(name: String, value: Value)] = []

    public init() {}

    public subscript(name: String) -> Value? {
        get { entries.first { $0.name == name }?.value }
        set {
            if let index = entries.firstIndex(where: { $0.name == name }) {
                if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                entries.append((name, newValue))
            }
        }
    }

    /// The names set, in order.
    public var names: [String] { entries.map(\.name) }

    public var isEmpty: Bool { entries.isEmpty }
}

extension NamedValues: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, Value)...) {
        for (name, value) in elements { self[name] = value }
    }
}

extension NamedValues: Equatable where Value: Equatable {
    /// The same names with the same values, in any order.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.entries.count == rhs.entries.count && lhs.entries.allSatisfy { rhs[$0.name] == $0.value }
    }
}
