/// The JSON of an RFC 9457 problem, written by hand so that the server needs
/// no JSON library.
enum ProblemBody {
    static func json(status: Int, detail: String) -> [UInt8] {
        let title = HTTPStatus.reasonPhrase(status)
        let text = #"{"type":"about:blank","title":"# + quoted(title.isEmpty ? "Error" : title)
            + #","status":"# + String(status) + #","detail":"# + quoted(detail) + "}"
        return Array(text.utf8)
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control
    /// characters escaped; everything else as UTF-8.
    static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
