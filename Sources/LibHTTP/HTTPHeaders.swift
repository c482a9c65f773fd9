/// HTTP header fields in order, names looked up without regard to ASCII
/// case (RFC 9110 §5.1). Printing them redacts credentials, so that a log or
/// an error can never show a token. Shared by the client and the server.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Element = (name: String, value: String)

    /// The fields as sent or received, names with their original spelling.
    public private(set) var fields: [Element]

    /// Header names whose values are never printed.
    public static let sensitiveNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    public init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { (name: $0.0, value: $0.1) }
    }

    public init(fields: [Element]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field `name`, or nil when it is absent.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// Adds a field, keeping any others of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field called `name` by one field with `value`, kept at
    /// the position of the first one (or appended).
    public mutating func set(_ name: String, _ value: String) {
        if let first = fields.firstIndex(where: { Self.sameName($0.name, name) }) {
            fields[first].value = value
            var index = fields.index(after: first)
            while index < fields.endIndex {
                if Self.sameName(fields[index].name, name) { fields.remove(at: index) } else { index += 1 }
            }
        } else {
            fields.append((name: name, value: value))
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// One `Name: value` line per field, credentials shown as `<redacted>`.
    public var description: String {
        fields.map { field in
            let value = Self.sensitiveNames.contains(field.name.lowercased()) ? "<redacted>" : field.value
            return "\(field.name): \(value)"
        }.joined(separator: "\n")
    }

    /// ASCII case-insensitive comparison without allocating lowercased copies.
    public static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                if x != y && asciiLower(x) != asciiLower(y) { return false }
            default: return false
            }
        }
    }

    static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }
}
