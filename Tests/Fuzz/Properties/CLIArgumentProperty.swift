@testable import LibCLI
@testable import LibCommands
import LibJSON
import LibClient

/// What users type: `FIELD=STRING` / `FIELD:=JSON` assignments, resource
/// paths, and whole `lib` command lines. Never a crash; an assignment
/// splits at its first `=` and reads back as the argument it came from; its
/// value lands in the document as given (a string as is, JSON as parsed);
/// a path that is accepted is a collection, or a collection and a valid id,
/// and its own spelling parses back to it; a refusal is a one-line message
/// that names what was typed.
///
/// Input: arguments separated by NUL bytes.
enum CLIArgumentProperty: FuzzProperty {
    static let parser = CommandLineParser(registry: .lib)

    static func check(_ input: [UInt8]) -> String? {
        let arguments = input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        for argument in arguments.prefix(8) {
            if let violation = checkAssignment(argument) ?? checkPath(argument) { return violation }
        }
        for line in [arguments, ["edit"] + arguments, ["edit", "books/b-7"] + arguments] {
            do {
                _ = try parser.parse(line)
            } catch {
                guard !error.message.isEmpty, !error.message.contains("\n") || line.contains(where: { $0.contains("\n") })
                else { return "a usage error without a one-line message for \(line)" }
            }
        }
        return nil
    }

    private static func checkAssignment(_ argument: String) -> String? {
        guard let assignment = FieldAssignment(parsing: argument) else {
            let equals = argument.firstIndex(of: "=")
            guard equals == nil || argument[..<equals!].isEmpty || argument[..<equals!] == ":" else {
                return "'\(argument)' was refused as an assignment"
            }
            return nil
        }
        guard !assignment.field.isEmpty, !assignment.field.contains("=") else {
            return "'\(argument)' gave the field name '\(assignment.field)'"
        }
        let spelled: String
        switch assignment.value {
        case .string(let text): spelled = assignment.field + "=" + text
        case .json(let text): spelled = assignment.field + ":=" + text
        }
        guard spelled == argument else { return "'\(argument)' reads back as '\(spelled)'" }
        do {
            let document = try FieldAssignment.apply([assignment], to: JSONObject([("title", "Dune")]))
            let value = try assignment.jsonValue()
            guard document[assignment.field] == value else { return "'\(argument)' did not set its field" }
            if case .string(let text) = assignment.value, value != .string(text) { return "'\(argument)' changed its text" }
        } catch {
            guard case .json = assignment.value else { return "'\(argument)' (a string) was refused: \(error.message)" }
        }
        return nil
    }

    private static func checkPath(_ text: String) -> String? {
        do {
            let path = try ResourcePath(parsing: text)
            guard ResourcePath.collections.contains(path.collection) else { return "'\(text)' gave collection '\(path.collection)'" }
            if let id = path.id, !ResourcePath.isValidID(id) { return "'\(text)' gave id '\(id)'" }
            guard let again = try? ResourcePath(parsing: path.description), again == path else {
                return "'\(text)' is shown as '\(path.description)', which does not parse back"
            }
            guard path.apiPath == "/v1/" + path.description else { return "'\(text)' has API path \(path.apiPath)" }
        } catch {
            guard !error.message.isEmpty else { return "'\(text)' was refused without a message" }
        }
        return nil
    }
}
