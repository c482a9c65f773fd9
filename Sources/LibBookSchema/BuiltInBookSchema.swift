/// The book's JSON Schema (2020-12), written once: lib-server validates with
/// it and serves it at `GET /v1/schemas/book` (unless `--book-schema FILE`
/// gives another), and lib checks edits with the copy its server served, or
/// with this one until it has fetched one.
public enum BuiltInBookSchema {
    public static let text = #"""
        {
          "$schema": "https://json-schema.org/draft/2020-12/schema",
          "$id": "urn:lib:schemas:book",
          "title": "Book",
          "description": "A book of the library. 'id', when present, must equal the id in the path.",
          "type": "object",
          "properties": {
            "id": {"type": "string"},
            "title": {"type": "string", "minLength": 1, "maxLength": 500},
            "author": {"type": "string"},
            "year": {"type": "integer"},
            "copies": {"type": "integer", "minimum": 0},
            "tags": {"type": "array", "items": {"type": "string"}}
          },
          "required": ["title"],
          "additionalProperties": false
        }
        """#

    /// The built-in schema, parsed. `text` is a constant that
    /// BookSchemaTests parses on every run, so the trap below can only fire
    /// in a build whose tests failed.
    public static let schema: BookSchema = {
        do { return try BookSchema(text: text) } catch { fatalError("the built-in book schema is invalid: \(error)") }
    }()
}
