import Foundation

/// Prometheus's text format, version 0.0.4: `# HELP` and `# TYPE` before
/// each metric's samples, label values escaped.
struct MetricsExposition {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var text = ""

    mutating func metric(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.number(value) + "\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
        sample(name, labels, Double(value))
    }

    mutating func sample(_ name: String, _ value: Int) { sample(name, [], Double(value)) }
    mutating func sample(_ name: String, _ value: Double) { sample(name, [], value) }

    static func escaped(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    static func number(_ value: Double) -> String {
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
