#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Turns a response into the bytes of an HTTP/1.1 message.
enum ResponseSerializer {
    /// The `Date` value, formatted once a second rather than once an answer.
    private static let dateCache = Mutex<(second: Int, text: String)>((0, ""))

    static func currentDate() -> String {
        let now = time(nil)
        return dateCache.withLock { cache in
            if cache.second != now { cache = (now, HTTPDate.format(secondsSince1970: now)) }
            return cache.text
        }
    }

    /// Header fields the server owns: the handler's values are dropped.
    private static let ownedFields = ["Content-Length", "Transfer-Encoding", "Connection"]

    /// - Parameters:
    ///   - headOnly: an answer to HEAD: `Content-Length` of the body, but no body.
    ///   - connection: the `Connection` value to send (`close`, `keep-alive`), or nil.
    ///   - date: the `Date` value, when the caller keeps its own (an event loop does: no lock per answer).
    static func serialize(_ response: HTTPResponse, headOnly: Bool, connection: String?, date: String? = nil) -> [UInt8] {
        // A status line needs three digits; anything else is a handler bug.
        let status = (100...999).contains(response.status) ? response.status : 500
        let noBody = HTTPStatus.forbidsBody(status)
        let sendsBody = !noBody && !headOnly
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + (sendsBody ? response.body.count : 0))
        bytes += "HTTP/1.1 ".utf8
        appendDecimal(status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        bytes += HTTPStatus.reasonPhrase(status).utf8
        bytes += crlf
        var hasDate = false
        for field in response.headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(RequestParser.isTokenByte),
                  !ownedFields.contains(where: { HTTPHeaders.sameName($0, field.name) })
            else { continue }
            if HTTPHeaders.sameName(field.name, "Date") { hasDate = true }
            appendField(field.name, field.value, to: &bytes)
        }
        if !noBody {
            bytes += "Content-Length: ".utf8
            appendDecimal(response.body.count, to: &bytes)
            bytes += crlf
        }
        if !hasDate { appendField("Date", date ?? currentDate(), to: &bytes) }
        if let connection { appendField("Connection", connection, to: &bytes) }
        bytes += crlf
        if sendsBody { bytes += response.body }
        return bytes
    }

    private static let crlf: [UInt8] = [13, 10]

    /// `NAME: VALUE` and CRLF, the value's CR, LF and NUL (which would split
    /// or end the header) made spaces.
    private static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        bytes += name.utf8
        bytes += ": ".utf8
        let start = bytes.count
        bytes += value.utf8
        if bytes[start...].contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            bytes.replaceSubrange(start..., with: sanitized(value).utf8)
        }
        bytes += crlf
    }

    /// A CRLF, a CR, an LF or a NUL becomes one space.
    private static func sanitized(_ value: String) -> String {
        String(value.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
    }

    private static func appendDecimal(_ number: Int, to bytes: inout [UInt8]) {
        if number >= 10 { appendDecimal(number / 10, to: &bytes) }
        bytes.append(UInt8(ascii: "0") + UInt8(number % 10))
    }
}

/// The `Date` value for one thread's answers, formatted once a second
/// (no lock per answer, unlike `ResponseSerializer.currentDate`).
struct DateCache {
    private var second = 0
    private var text = ""

    mutating func now() -> String {
        let current = time(nil)
        if current != second {
            second = current
            text = HTTPDate.format(secondsSince1970: current)
        }
        return text
    }
}
