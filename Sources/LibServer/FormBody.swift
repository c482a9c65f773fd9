import LibHTTPServer

/// An `application/x-www-form-urlencoded` body (what an HTML form and an
/// RFC 8628 client send): names and values, `+` a space, `%XX` a byte.
/// The first value of a repeated name wins; nil for a body that is not
/// valid form data (a bad escape, bytes that are not UTF-8).
enum FormBody {
    static let mediaType = "application/x-www-form-urlencoded"

    static func isForm(_ request: HTTPRequest) -> Bool {
        request.headers["Content-Type"].map { MediaType.of(contentType: $0) == mediaType } ?? false
    }

    static func fields(_ body: [UInt8]) -> [String: String]? {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = decode(pair[..<(equals ?? pair.endIndex)]),
                  let value = decode(equals.map { pair[($0 + 1)...] } ?? [])
            else { return nil }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// `+` is a space; `%2B` a plus.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        RequestTarget.percentDecode(ArraySlice(bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }))
    }
}
