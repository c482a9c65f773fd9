import Foundation
import LibJSON
import Testing
import TestSupport

/// LibJSON against Python's `json` on generated texts, valid and mutated
/// (issue 23): both accept the same texts, and read the same values from
/// them. Python is told the protocol's stricter rules where RFC 8259 leaves
/// a choice (duplicate keys, NaN and Infinity, unpaired surrogates, numbers
/// beyond a double, bytes that are not UTF-8), so any difference is a bug
/// on one side.
@Suite struct JSONDifferentialTests {
    static let python = #"""
        import json, math, sys
        def pairs(items):
            keys = [k for k, _ in items]
            if len(set(keys)) != len(keys): raise ValueError("duplicate key")
            return dict(items)
        def no_constant(name): raise ValueError(name)
        def finite(text):
            value = float(text)
            if math.isinf(value): raise ValueError("out of range")
            return value
        def surrogate_free(value):
            if isinstance(value, str): return not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
            if isinstance(value, list): return all(surrogate_free(v) for v in value)
            if isinstance(value, dict): return all(surrogate_free(k) and surrogate_free(v) for k, v in value.items())
            return True
        for n in range(int(sys.argv[2])):
            data = open(f"{sys.argv[1]}/{n}", "rb").read()
            try:
                value = json.loads(data.decode("utf-8"), object_pairs_hook=pairs, parse_constant=no_constant, parse_float=finite)
                if not surrogate_free(value): raise ValueError("surrogate")
                print("ok " + json.dumps(value, ensure_ascii=True, separators=(",", ":")))
            except (ValueError, RecursionError, UnicodeDecodeError):
                print("error")
        """#

    @Test func libJSONAndPythonAcceptTheSameTextsAndReadTheSameValues() throws {
        var random = SeededRandom(seed: 23)
        var texts: [[UInt8]] = []
        for n in 0..<800 {
            var text = Array(Self.text(Self.value(&random, depth: 0), &random).utf8)
            // Every other text is damaged in one place: a byte dropped, doubled or replaced.
            if n % 2 == 1, !text.isEmpty {
                let at = Int.random(in: 0..<text.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: text.remove(at: at)
                case 1: text.insert(text[at], at: at)
                default: text[at] = random.pick(Array("{}[]\",:\\ -.0eE1tfnu".utf8) + [0x80, 0xC3, 0x01])
                }
            }
            texts.append(text)
        }
        let answers = try python3Lines(Self.python, inputs: texts)
        try #require(answers.count == texts.count)
        var accepted = 0, rejected = 0
        for (text, answer) in zip(texts, answers) {
            let shown = String(decoding: text, as: UTF8.self).debugDescription
            let ours = try? JSONParser.parse(text)
            if answer == "error" {
                rejected += 1
                #expect(ours == nil, "Python rejects what LibJSON accepts: \(shown)")
                continue
            }
            accepted += 1
            let theirs = try #require(try? JSONParser.parse(String(answer.dropFirst(3))), "\(answer)")
            guard let ours else {
                Issue.record("LibJSON rejects what Python accepts: \(shown)")
                continue
            }
            #expect(Self.same(ours, theirs), "different values for \(shown): \(ours.serialized()) vs \(answer)")
        }
        #expect(accepted > 300 && rejected > 200, "\(accepted) accepted, \(rejected) rejected: the generator covers both")
    }

    /// Equal values with members in the same order; numbers equal as numbers
    /// (Python keeps integers beyond Int64 exact, LibJSON as doubles).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            return x.keys == y.keys && zip(x.members, y.members).allSatisfy { same($0.value, $1.value) }
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)):
            return Double(x) == y
        default:
            return a == b
        }
    }

    static func value(_ random: inout SeededRandom, depth: Int) -> String {
        switch Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &random) {
        case 0: return random.pick(["true", "false", "null"])
        case 1: return number(&random)
        case 2, 3: return string(&random)
        case 4, 5:
            let count = Int.random(in: 0...6, using: &random)
            var keys: [String] = []
            for _ in 0..<count { keys.append(random.chance(0.1) && !keys.isEmpty ? random.pick(keys) : string(&random)) }
            return "{" + keys.map { $0 + space(&random) + ":" + space(&random) + value(&random, depth: depth + 1) }.joined(separator: ",") + "}"
        default:
            let count = Int.random(in: 0...6, using: &random)
            return "[" + (0..<count).map { _ in space(&random) + value(&random, depth: depth + 1) + space(&random) }.joined(separator: ",") + "]"
        }
    }

    static func number(_ random: inout SeededRandom) -> String {
        random.pick([
            String(Int64.random(in: -1_000_000...1_000_000, using: &random)), "0", "-0", "9223372036854775807", "-9223372036854775808",
            "92233720368547758070", "1.5", "-0.25", "3.14159", "1e3", "2E-5", "6.02e+23", "1e400", "-1e-400", "123.456e7",
        ])
    }

    static func string(_ random: inout SeededRandom) -> String {
        let pieces = ["a", "Dune", " ", "é", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\u0001", "\\ud83d\\ude00", "\\ud800",
                      "\\udc00x", "\u{202E}", "\u{85}", "\u{7F}", "\\t", "\\b", "\\f", "\\r", "k", "Ж", "\\u001b]0;x\\u0007"]
        return "\"" + (0..<Int.random(in: 0...5, using: &random)).map { _ in random.pick(pieces) }.joined() + "\""
    }

    static func space(_ random: inout SeededRandom) -> String { random.chance(0.2) ? random.pick([" ", "\n", "\t", "\r\n  "]) : "" }

    static func text(_ value: String, _ random: inout SeededRandom) -> String { space(&random) + value + space(&random) }
}
