/// A value bound to or read from an SQL statement.
public enum SQLValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var integer: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    public var text: String? { if case .text(let v) = self { return v } else { return nil } }
    public var real: Double? {
        switch self {
        case .real(let v): return v
        case .integer(let v): return Double(v)
        default: return nil
        }
    }
    public var blob: [UInt8]? {
        switch self {
        case .blob(let v): return v
        case .text(let v): return Array(v.utf8)
        default: return nil
        }
    }
    public var isNull: Bool { self == .null }
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLValue {
    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    public init(_ value: Double) { self = .real(value) }
    public init(_ value: Bool) { self = .integer(value ? 1 : 0) }
}
