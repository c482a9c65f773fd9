import Foundation

/// A value a test's threads share, reached only under its lock.
public final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: Value

    public init(_ value: Value) { state = value }

    public var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }

    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
