/// Splits an origin-form request-target into its decoded path and query.
public enum RequestTarget {
    /// Fails when a percent-escape is malformed, decodes to invalid UTF-8, or
    /// puts a NUL into the path.
    static func decode(_ target: String) -> Result<(path: String, query: [String: String]), RequestFailure> {
        let bytes = Array(target.utf8)
        let questionMark = bytes.firstIndex(of: UInt8(ascii: "?"))
        var pathBytes = bytes[..<(questionMark ?? bytes.endIndex)]
        // A fragment is never sent by a conforming client; ignore it if one is.
        if let hash = pathBytes.firstIndex(of: UInt8(ascii: "#")) { pathBytes = pathBytes[..<hash] }
        // Decoded, %2F would turn one segment into two: /v1/books/b-7%2Fhistory is not /v1/books/b-7/history.
        if containsEncodedSlash(pathBytes) {
            return .failure(.badRequest("the path contains an encoded '/' (%2F) inside a segment"))
        }
        guard let path = percentDecode(pathBytes), !path.utf8.contains(0) else {
            return .failure(.badRequest("the path contains an invalid percent-escape"))
        }
        var query: [String: String] = [:]
        if let questionMark {
            var queryBytes = bytes[(questionMark + 1)...]
            if let hash = queryBytes.firstIndex(of: UInt8(ascii: "#")) { queryBytes = queryBytes[..<hash] }
            for pair in queryBytes.split(separator: UInt8(ascii: "&")) {
                let equals = pair.firstIndex(of: UInt8(ascii: "="))
                guard let name = percentDecode(pair[..<(equals ?? pair.endIndex)]),
                      let value = percentDecode(equals.map { pair[($0 + 1)...] } ?? [])
                else {
                    return .failure(.badRequest("the query contains an invalid percent-escape"))
                }
                if query[name] == nil { query[name] = value }
            }
        }
        return .success((path, query))
    }

    /// RFC 3986 §2.1 percent-decoding into UTF-8; `+` stays `+`; nil for a
    /// bad escape or bytes that are not UTF-8.
    public static func percentDecode(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.endIndex,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func containsEncodedSlash(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index + 2 < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "%") && bytes[index + 1] == UInt8(ascii: "2")
                && (bytes[index + 2] == UInt8(ascii: "F") || bytes[index + 2] == UInt8(ascii: "f")) {
                return true
            }
            index += 1
        }
        return false
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}
