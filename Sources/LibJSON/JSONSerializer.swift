extension JSONValue {
    /// Compact JSON text, members in their order: what goes over the wire and into stores.
    public func serialized() -> String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented JSON text for people (two spaces, one member per line).
    public func prettyPrinted() -> String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out
    }

    public var utf8Bytes: [UInt8] { Array(serialized().utf8) }

    private func write(to out: inout String, indent: String?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d): out += Self.format(d)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                item.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let object):
            if object.isEmpty { out += "{}"; return }
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                Self.writeString(member.key, to: &out)
                out += indent == nil ? ":" : ": "
                member.value.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n"
        for _ in 0..<level { out += indent }
    }

    private static func format(_ d: Double) -> String {
        // Swift's description is the shortest text that reads back the same;
        // a whole number keeps a fraction so it stays a fraction on re-parse.
        let text = d.description
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // Printable ASCII without a quote or a backslash (most text) has
        // nothing to escape: appended at once, not scalar by scalar.
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                // Beyond what RFC 8259 requires (C0): DEL, C1 and the bidi
                // controls too, so that JSON on a terminal is as safe as text.
                if scalar.isTerminalControl { out += scalar.jsonUnicodeEscape } else { out.unicodeScalars.append(scalar) }
            }
        }
        out += "\""
    }
}
