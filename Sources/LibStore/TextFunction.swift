import CSQLite

/// A text function written in Swift, callable from this connection's SQL:
/// one call where the same work as SQL expressions cost more (lib's letter
/// folding as twelve nested `replace`s was a third of a first pull's
/// instructions).
private final class TextFunction {
    let transform: (String) -> String
    init(_ transform: @escaping (String) -> String) { self.transform = transform }
}

extension Database {
    /// Makes `name(x)` call `transform` on x read as text (NULL gives NULL,
    /// as SQL's text functions do), once per connection: later calls with
    /// the same name do nothing. Deterministic: the same text, the same result.
    public func defineTextFunction(_ name: String, _ transform: @escaping (String) -> String) throws(DatabaseError) {
        guard !textFunctions.contains(name) else { return }
        let function = Unmanaged.passRetained(TextFunction(transform)).toOpaque()
        let rc = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, function,
            { context, _, arguments in
                guard let argument = arguments?[0], sqlite3_value_type(argument) != SQLITE_NULL,
                      let bytes = sqlite3_value_text(argument), let function = sqlite3_user_data(context)
                else { return sqlite3_result_null(context) }
                let text = String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(argument))),
                                  as: UTF8.self)
                let result = Unmanaged<TextFunction>.fromOpaque(function).takeUnretainedValue().transform(text)
                result.withCString { sqlite3_result_text(context, $0, Int32(result.utf8.count), csqlite_transient()) }
            },
            nil, nil,
            { function in function.map { Unmanaged<TextFunction>.fromOpaque($0).release() } })
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
        textFunctions.insert(name)
    }
}
