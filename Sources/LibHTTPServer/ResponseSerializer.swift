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
        var text = "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n"
        var hasDate = false
        for field in response.headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(RequestParser.isTokenByte),
                  !ownedFields.contains(where: { HTTPHeaders.sameName($0, field.name) })
            else { continue }
            if HTTPHeaders.sameName(field.name, "Date") { hasDate = true }
            text += field.name + ": " + sanitized(field.value) + "\r\n"
        }
        let noBody = HTTPStatus.forbidsBody(status)
        if !noBody { text += "Content-Length: \(response.body.count)\r\n" }
        if !hasDate { text += "Date: \(date ?? currentDate())\r\n" }
        if let connection { text += "Connection: \(connection)\r\n" }
        text += "\r\n"
        var bytes = Array(text.utf8)
        if !noBody && !headOnly { bytes += response.body }
        return bytes
    }

    /// CR, LF and NUL in a value would split or end the header: replace them.
    private static func sanitized(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else { return value }
        return String(value.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
    }
}
