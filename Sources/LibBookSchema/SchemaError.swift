/// Why a text is not a book schema this code can apply.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
