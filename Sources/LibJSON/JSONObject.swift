/// A JSON object: its members in the order they were written, with lookup by
/// key. Keys are unique; setting an existing key replaces it in place.
///
/// Lookup is by a hash index once the object has more than a few members,
/// so that parsing or building an object is linear in its size (a list
/// searched per member made a 64,000-member object cost 6.7 s, issue 23).
/// Small objects, which books are, search their few members instead.
public struct JSONObject: Sendable, Equatable, Sequence {
    public private(set) var members: [(key: String, value: JSONValue)]
    /// Each key's position in `members`; empty while the object is small.
    private var positions: [String: Int] = [:]
    private static let smallCount = 8

    public init(_ members: [(String, JSONValue)] = []) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for (key, value) in members { self[key] = value }
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            switch (position(of: key), newValue) {
            case (let i?, let v?): members[i].value = v
            case (let i?, nil): remove(at: i)
            case (nil, let v?): append(key, v)
            case (nil, nil): break
            }
        }
    }

    private func position(of key: String) -> Int? {
        if members.count <= Self.smallCount { return members.firstIndex(where: { $0.key == key }) }
        return positions[key]
    }

    private mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key, value))
        if members.count == Self.smallCount + 1 {
            positions.reserveCapacity(Self.smallCount * 4)
            for (i, member) in members.enumerated() { positions[member.key] = i }
        } else if members.count > Self.smallCount {
            positions[key] = members.count - 1
        }
    }

    private mutating func remove(at i: Int) {
        members.remove(at: i)
        positions.removeAll(keepingCapacity: true)
        if members.count > Self.smallCount {
            for (j, member) in members.enumerated() { positions[member.key] = j }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { members.makeIterator() }

    /// Objects are equal when they have the same members, whatever the order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }
}
