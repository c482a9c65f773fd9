import CSQLite

/// A text function written in Swift, callable from this connection's SQL:
/// one call where the same work as SQL expressions cost more (lib's letter
/// folding as twelve nested `replace`s was a third of a first pull's
/// instructions).
private final class TextFunction {
    let keeps: (UnsafeBufferPointer<UInt8>) -> Bool
    let transform: (String) -> String
    init(keeps: @escaping (UnsafeBufferPointer<UInt8>) -> Bool, _ transform: @escaping (String) -> String) {
        self.keeps = keeps
        self.transform = transform
    }
}

extension Database {
    /// Makes `name(x)` call `transform` on x read as text (NULL gives NULL,
    /// as SQL's text functions do), once per connection: later calls with
    /// the same name do nothing. Deterministic: the same text, the same result.
    /// `keeps`: true when `transform` would give its UTF-8 text back as it
    /// is; the text is then returned without becoming a Swift string (most
    /// of a first pull's 300,000 calls: ASCII text, nothing to fold).
    public func defineTextFunction(_ name: String, keeps: @escaping (UnsafeBufferPointer<UInt8>) -> Bool = { _ in false },
                                   _ transform: @escaping (String) -> String) throws(DatabaseError) {
        guard !textFunctions.contains(name) else { return }
        let function = Unmanaged.passRetained(TextFunction(keeps: keeps, transform)).toOpaque()
        let rc = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, function,
            { context, _, arguments in
                guard let argument = arguments?[0], sqlite3_value_type(argument) != SQLITE_NULL,
                      let bytes = sqlite3_value_text(argument), let data = sqlite3_user_data(context)
                else { return sqlite3_result_null(context) }
                let count = sqlite3_value_bytes(argument)
                let utf8 = UnsafeBufferPointer(start: bytes, count: Int(count))
                let function = Unmanaged<TextFunction>.fromOpaque(data).takeUnretainedValue()
                if function.keeps(utf8) {
                    return bytes.withMemoryRebound(to: CChar.self, capacity: Int(count)) {
                        sqlite3_result_text(context, $0, count, csqlite_transient())
                    }
                }
                let result = function.transform(String(decoding: utf8, as: UTF8.self))
                result.withCString { sqlite3_result_text(context, $0, Int32(result.utf8.count), csqlite_transient()) }
            },
            nil, nil,
            { function in function.map { Unmanaged<TextFunction>.fromOpaque($0).release() } })
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
        textFunctions.insert(name)
    }
}
