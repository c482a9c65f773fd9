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

    private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%") {
                guard bytes.endIndex - i >= 3,
                      let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 2
            } else {
                out.append(byte)
            }
            i += 1
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
