/// Why a text is not valid JSON, and where (1-based line and column).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let line: Int
    public let column: Int
    /// The text may be valid JSON, but holds more members than the parser's
    /// limits allow (a server answers 413 rather than 400).
    public var exceedsSizeLimit = false
    public var description: String { "\(reason) at line \(line), column \(column)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes. Rejects duplicate keys, since
/// the protocol gives them no meaning and a silent last-wins would hide a typo.
public struct JSONParser {
    /// How much a text may hold: caps that keep a hostile text's cost bounded
    /// (the parser is linear, but a server should not build a million-member
    /// object to refuse it afterwards).
    public struct Limits: Sendable {
        /// Arrays and objects inside one another.
        public var maxDepth: Int
        /// Members of any one object.
        public var maxMembers: Int

        public init(maxDepth: Int = 512, maxMembers: Int = 1_000_000) {
            self.maxDepth = maxDepth
            self.maxMembers = maxMembers
        }
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var index = 0
    private var depth = 0

    public static func parse(_ text: String, limits: Limits = Limits()) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, limits: limits)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8], limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func error(_ reason: String, at position: Int? = nil) -> JSONSyntaxError {
        let end = min(position ?? index, bytes.count)
        var line = 1, column = 1
        for b in bytes[..<end] {
            if b == UInt8(ascii: "\n") { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return JSONSyntaxError(reason: reason, line: line, column: column)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(printable(bytes[index]))'")
        }
    }

    private func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    private mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        let count = expected.count
        let matches = index + count <= bytes.count && expected[...] == bytes[index..<index + count]
        guard matches else { throw error("invalid literal (expected \(word))") }
        index += count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > limits.maxDepth { throw error("nesting deeper than \(limits.maxDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(object) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(index < bytes.count ? "expected a quoted key" : "unexpected end of input")
            }
            let keyStart = index
            if object.count == limits.maxMembers {
                var tooMany = error("an object with more than \(limits.maxMembers) members", at: keyStart)
                tooMany.exceedsSizeLimit = true
                throw tooMany
            }
            let key = try parseString()
            if object[key] != nil { throw error("duplicate key '\(key)'", at: keyStart) }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            index += 1
            skipWhitespace()
            object[key] = try parseValue()
            guard try anotherFollows(closing: "}") else { return .object(object) }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            guard try anotherFollows(closing: "]") else { return .array(items) }
        }
    }

    /// After a member or an item: true past a comma, false past `closing`.
    private mutating func anotherFollows(closing: Unicode.Scalar) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input") }
        if bytes[index] == UInt8(ascii: ",") { index += 1; return true }
        if bytes[index] == UInt8(ascii: closing) { index += 1; return false }
        throw error("expected ',' or '\(closing)'")
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1
        var runStart = index
        var result = ""
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                result += try decodeRun(runStart, index)
                index += 1
                return result
            }
            if b < 0x20 { throw error("control character in string") }
            if b == UInt8(ascii: "\\") {
                result += try decodeRun(runStart, index)
                index += 1
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""): result += "\""
                case UInt8(ascii: "\\"): result += "\\"
                case UInt8(ascii: "/"): result += "/"
                case UInt8(ascii: "b"): result += "\u{08}"
                case UInt8(ascii: "f"): result += "\u{0C}"
                case UInt8(ascii: "n"): result += "\n"
                case UInt8(ascii: "r"): result += "\r"
                case UInt8(ascii: "t"): result += "\t"
                case UInt8(ascii: "u"): result.unicodeScalars.append(try parseUnicodeEscape())
                default: throw error("invalid escape '\\\(printable(escaped))'", at: index - 2)
                }
                runStart = index
                continue
            }
            index += 1
        }
        throw error("unterminated string")
    }

    /// The bytes of a string between escapes. Text that is not UTF-8 is
    /// refused (RFC 8259 §8.1) rather than read with replacement characters:
    /// found by the differential test against Python's json (issue 23).
    private func decodeRun(_ start: Int, _ end: Int) throws(JSONSyntaxError) -> String {
        let run = bytes[start..<end]
        if run.allSatisfy({ $0 < 0x80 }) { return String(decoding: run, as: UTF8.self) }
        guard let text = String(validating: run, as: UTF8.self) else { throw error("invalid UTF-8 in string", at: start) }
        return text
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for b in bytes[index..<index + 4] {
            value <<= 4
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value |= UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value |= UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value |= UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape")
            }
        }
        index += 4
        return value
    }

    private mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("unpaired surrogate in \\u escape") }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw error("unpaired surrogate in \\u escape") }
            let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            guard let scalar = Unicode.Scalar(combined) else { throw error("invalid \\u escape") }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("unpaired surrogate in \\u escape") }
        return scalar
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("leading zero in number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw error("number out of range", at: start) }
        return .double(double)
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
