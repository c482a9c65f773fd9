import Foundation

/// Checks a command's JSON output against its schema in docs/json/ with a
/// real validator: Debian's python3-jsonschema (Draft 2020-12), installed by
/// scripts/install-deps.sh.
public enum JSONSchemaValidator {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The repository's docs/json directory.
    public static let schemaDirectory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/json").path

    private static let program = """
        import json, sys
        from jsonschema import Draft202012Validator
        schema = json.load(open(sys.argv[1]))
        Draft202012Validator.check_schema(schema)
        text = sys.stdin.read()
        try:
            instance = json.loads(text)
        except ValueError as error:
            sys.exit("not JSON: %s\\n%s" % (error, text))
        errors = sorted(Draft202012Validator(schema).iter_errors(instance), key=lambda e: list(e.path))
        for error in errors:
            print("%s: %s" % ("/".join(str(p) for p in error.path) or "(root)", error.message), file=sys.stderr)
        sys.exit(1 if errors else 0)
        """

    /// Throws unless `text` is one JSON document valid under docs/json/NAME.schema.json.
    public static func validate(_ text: String, against name: String) throws {
        let schema = schemaDirectory + "/\(name).schema.json"
        let result = try CommandRunner.run("/usr/bin/python3", ["-c", program, schema], stdin: text)
        guard result.status == 0 else {
            throw Failure(description: "\(name).schema.json rejects the output:\n\(result.stderr)\n--- output\n\(text)")
        }
    }
}
