/// A JSON object: its members in the order they were written, with lookup by
/// key. Keys are unique; setting an existing key replaces it in place.
public struct JSONObject: Sendable, Equatable, Sequence {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init(_ members: [(String, JSONValue)] = []) {
        self.members = []
        for (key, value) in members { self[key] = value }
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            let index = members.firstIndex(where: { $0.key == key })
            switch (index, newValue) {
            case (let i?, let v?): members[i].value = v
            case (let i?, nil): members.remove(at: i)
            case (nil, let v?): members.append((key, v))
            case (nil, nil): break
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { members.makeIterator() }

    /// Objects are equal when they have the same members, whatever the order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }
}
