/// The request line and header fields of one request, checked for syntax.
struct RequestHead: Sendable, Equatable {
    var method: String
    var target: String
    /// `HTTP/1.0` or `HTTP/1.1` (later 1.x minors are served as 1.1).
    var version: String
    var headers: HTTPHeaders

    var isHTTP10: Bool { version == "HTTP/1.0" }
}

/// Why a request cannot be served; the server answers `status` with a
/// problem body carrying `detail`, then closes.
struct RequestFailure: Error, Equatable, Sendable {
    let status: Int
    let detail: String

    static func badRequest(_ detail: String) -> RequestFailure { RequestFailure(status: 400, detail: detail) }
}

/// Parses HTTP/1.1 request heads (RFC 9112 §3 and §5) strictly: anything the
/// grammar does not allow is a 400, never a guess.
enum RequestParser {
    static let cr: UInt8 = 13, lf: UInt8 = 10, space: UInt8 = 32, tab: UInt8 = 9, colon: UInt8 = 58

    /// The index just past the `CRLF CRLF` that ends the head, searching
    /// `bytes[start...]` from `scanFrom` on (so that a slow sender costs linear time).
    static func headEnd(in bytes: [UInt8], start: Int, scanFrom: Int) -> Int? {
        var index = max(start, scanFrom - 3)
        while index + 3 < bytes.count {
            if bytes[index + 3] != lf {
                index += bytes[index + 3] == cr ? 1 : 4
                continue
            }
            if bytes[index] == cr && bytes[index + 1] == lf && bytes[index + 2] == cr {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// Checks the part of a request line received so far, so that garbage is
    /// rejected at once instead of after the idle timeout.
    static func checkPartialRequestLine(_ bytes: ArraySlice<UInt8>) -> RequestFailure? {
        var spaces = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == cr {
                let next = bytes.index(after: index)
                if next < bytes.endIndex && bytes[next] != lf {
                    return .badRequest("the request line contains a bare CR")
                }
                return nil
            }
            if byte == space {
                spaces += 1
                if spaces > 2 { return .badRequest("the request line has more than three parts") }
                if index == bytes.startIndex { return .badRequest("the request line starts with a space") }
            } else if byte < 0x20 || byte >= 0x7F {
                return .badRequest("the request line contains a control or non-ASCII byte")
            } else if spaces == 0 && !isTokenByte(byte) {
                return .badRequest("the method contains a character not allowed in a token")
            }
            index += 1
        }
        return nil
    }

    /// Parses a complete head: the bytes up to and including its `CRLF CRLF`.
    static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<RequestHead, RequestFailure> {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == cr {
                let next = bytes.index(after: index)
                guard next < bytes.endIndex, bytes[next] == lf else {
                    return .failure(.badRequest("a line contains a bare CR"))
                }
                lines.append(bytes[lineStart..<index])
                index = bytes.index(after: next)
                lineStart = index
                continue
            }
            if byte == lf { return .failure(.badRequest("a line ends with a bare LF")) }
            index += 1
        }
        // The head ends with an empty line; everything before it must be lines too.
        guard lineStart == bytes.endIndex, lines.count >= 2, let last = lines.last, last.isEmpty else {
            return .failure(.badRequest("the request head is incomplete"))
        }
        let requestLine: (method: String, target: String, version: String)
        switch parseRequestLine(lines[0]) {
        case .success(let parsed): requestLine = parsed
        case .failure(let failure): return .failure(failure)
        }
        var headers = HTTPHeaders()
        for line in lines[1..<(lines.count - 1)] {
            switch parseField(line) {
            case .success(let field): headers.add(field.name, field.value)
            case .failure(let failure): return .failure(failure)
            }
        }
        return .success(RequestHead(
            method: requestLine.method, target: requestLine.target, version: requestLine.version, headers: headers))
    }

    /// `method SP request-target SP HTTP-version`, origin-form targets only.
    static func parseRequestLine(_ line: ArraySlice<UInt8>) -> Result<(method: String, target: String, version: String), RequestFailure> {
        let parts = line.split(separator: space, omittingEmptySubsequences: false)
        if parts.count > 3 {
            return .failure(.badRequest("the request line has more than three parts"))
        }
        guard parts.count == 3 else {
            return .failure(.badRequest("the request line must be METHOD SP TARGET SP HTTP-VERSION"))
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else {
            return .failure(.badRequest("the method is not a token"))
        }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.badRequest("the request target contains a control, space or non-ASCII byte"))
        }
        guard target.first == UInt8(ascii: "/") else {
            return .failure(.badRequest("the request target must start with /"))
        }
        let versionBytes = Array(version)
        guard versionBytes.count == 8, versionBytes[0..<5].elementsEqual("HTTP/".utf8),
              isDigit(versionBytes[5]), versionBytes[6] == UInt8(ascii: "."), isDigit(versionBytes[7])
        else {
            return .failure(.badRequest("the protocol version must be HTTP/1.x"))
        }
        guard versionBytes[5] == UInt8(ascii: "1") else {
            return .failure(RequestFailure(status: 505, detail: "only HTTP/1.x is supported"))
        }
        let served = versionBytes[7] == UInt8(ascii: "0") ? "HTTP/1.0" : "HTTP/1.1"
        return .success((String(decoding: method, as: UTF8.self), String(decoding: target, as: UTF8.self), served))
    }

    /// `field-name ":" OWS field-value OWS`; obsolete line folding is refused (RFC 9112 §5.2).
    static func parseField(_ line: ArraySlice<UInt8>) -> Result<(name: String, value: String), RequestFailure> {
        if let first = line.first, first == space || first == tab {
            return .failure(.badRequest("obsolete header line folding is not accepted"))
        }
        guard let colonIndex = line.firstIndex(of: colon) else {
            return .failure(.badRequest("a header line has no colon"))
        }
        let name = line[line.startIndex..<colonIndex]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            return .failure(.badRequest("a header name is empty or contains a space or a character not allowed in a token"))
        }
        var value = line[line.index(after: colonIndex)...]
        while let first = value.first, first == space || first == tab { value = value.dropFirst() }
        while let last = value.last, last == space || last == tab { value = value.dropLast() }
        guard value.allSatisfy({ $0 == tab || ($0 >= 0x20 && $0 != 0x7F) }) else {
            return .failure(.badRequest("the value of header \(String(decoding: name, as: UTF8.self)) contains a control character"))
        }
        return .success((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// How many body bytes follow the head. Only Content-Length framing is
    /// supported: Transfer-Encoding is 501, and a duplicate, list-valued or
    /// non-numeric Content-Length is 400, since either could be a request
    /// smuggling attempt (RFC 9112 §6.3).
    static func bodyLength(of head: RequestHead, maxBodyBytes: Int) -> Result<Int, RequestFailure> {
        if head.headers.contains("Transfer-Encoding") {
            return .failure(RequestFailure(
                status: 501, detail: "Transfer-Encoding is not supported; send the body with Content-Length"))
        }
        let values = head.headers.values(for: "Content-Length")
        guard let value = values.first else { return .success(0) }
        guard values.count == 1 else { return .failure(.badRequest("Content-Length is given more than once")) }
        guard !value.isEmpty, value.utf8.allSatisfy(isDigit) else {
            return .failure(.badRequest("Content-Length is not a non-negative integer"))
        }
        var length = 0
        for digit in value.utf8 {
            let (times10, overflow1) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - 48))
            if overflow1 || overflow2 || sum > maxBodyBytes {
                return .failure(RequestFailure(
                    status: 413, detail: "the body (Content-Length \(value)) is larger than the limit of \(maxBodyBytes) bytes"))
            }
            length = sum
        }
        return .success(length)
    }

    /// An HTTP/1.1 request carries exactly one `Host` (RFC 9112 §3.2).
    static func checkHost(of head: RequestHead) -> RequestFailure? {
        if head.isHTTP10 { return nil }
        switch head.headers.values(for: "Host").count {
        case 0: return .badRequest("an HTTP/1.1 request needs a Host header")
        case 1: return nil
        default: return .badRequest("the Host header is given more than once")
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), 48...57: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
