@testable import LibHTTPServer

/// lib-server's request head parser on any bytes (RFC 9112 §2, §3, §5):
/// never a crash; the incremental search for the end of the head, fed the
/// input in pieces the way a slow client sends it, finds what a one-shot
/// search finds; the early check of a partial request line never refuses a
/// prefix of a head the full parser accepts; and what is accepted is what
/// the grammar allows.
enum HTTPRequestHeadProperty: FuzzProperty {
    static func check(_ input: [UInt8]) -> String? {
        let crlfcrlf: [UInt8] = [13, 10, 13, 10]
        let expectedEnd = firstIndex(of: crlfcrlf, in: input).map { $0 + 4 }
        guard RequestParser.headEnd(in: input, start: 0, scanFrom: 0) == expectedEnd else {
            return "headEnd disagrees with a plain search (\(String(describing: expectedEnd)))"
        }
        // Piece sizes come from the input, so the fuzzer explores them too.
        var received: [UInt8] = []
        var scanned = 0
        var found: Int?
        var cursor = 0
        var step = 0
        while cursor < input.count, found == nil {
            let size = 1 + Int(input[step % input.count] % 7)
            step += 1
            received += input[cursor..<min(input.count, cursor + size)]
            cursor = min(input.count, cursor + size)
            found = RequestParser.headEnd(in: received, start: 0, scanFrom: scanned)
            scanned = received.count
        }
        guard found == expectedEnd else { return "headEnd fed in pieces found \(String(describing: found))" }

        guard let end = expectedEnd else { return nil }
        let head: RequestHead
        switch RequestParser.parseHead(input[0..<end]) {
        case .failure(let failure):
            guard [400, 505].contains(failure.status), !failure.detail.isEmpty else {
                return "a malformed head got \(failure.status) '\(failure.detail)'"
            }
            return nil
        case .success(let parsed):
            head = parsed
        }
        var prefix = 0
        while prefix < end {
            if let refusal = RequestParser.checkPartialRequestLine(input[0..<prefix]) {
                return "a prefix of \(prefix) bytes of an acceptable head was refused: \(refusal.detail)"
            }
            prefix += max(1, end / 16)
        }
        guard !head.method.isEmpty, head.method.utf8.allSatisfy(RequestParser.isTokenByte) else {
            return "accepted a method that is not a token: \(head.method)"
        }
        guard head.target.hasPrefix("/"), head.target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "accepted a request target that is not origin-form: \(head.target)"
        }
        guard ["HTTP/1.0", "HTTP/1.1"].contains(head.version) else { return "accepted version \(head.version)" }
        for field in head.headers {
            guard !field.name.isEmpty, field.name.utf8.allSatisfy(RequestParser.isTokenByte) else {
                return "accepted a header name that is not a token: \(field.name)"
            }
            guard !field.value.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                return "accepted a header value with CR, LF or NUL"
            }
            guard field.value.first != " ", field.value.last != " " else { return "a header value kept its spaces" }
        }
        switch RequestParser.bodyLength(of: head, maxBodyBytes: 1024) {
        case .success(let length):
            guard (0...1024).contains(length) else { return "a body length of \(length) passed the limit" }
        case .failure(let failure):
            guard [400, 413, 501].contains(failure.status) else { return "body framing got \(failure.status)" }
        }
        switch RequestTarget.decode(head.target) {
        case .success(let decoded):
            guard !decoded.path.utf8.contains(0) else { return "a decoded path contains NUL" }
        case .failure(let failure):
            guard failure.status == 400 else { return "a bad target got \(failure.status)" }
        }
        return nil
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
