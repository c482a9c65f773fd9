import LibJSON

/// Whether a document the server sent is a book lib may keep: cache, show
/// and use as the base of a later write. The one place that asks the book
/// rules about answers (not about edits); the rules are the account's: the
/// schema its server served, so that a book with a field that server added
/// is kept.
public enum ServedBook {
    /// nil when `value` is a valid book whose `id` is `id`; otherwise what
    /// was wrong, as words for "an answer that did not come from the
    /// library server: …".
    public static func problem(in value: JSONValue, id: String, rules: BookRules) -> String? {
        guard value.objectValue?["id"]?.stringValue == id else {
            return "a document that is not the book \(id)"
        }
        if let first = rules.problems(in: value, id: id).first { return "a document that is not a valid book (\(first))" }
        return nil
    }

    /// The same for an answer's raw body, which must also be JSON at all.
    public static func problem(in body: [UInt8], id: String, rules: BookRules) -> String? {
        guard let value = try? JSONParser.parse(body) else {
            return body.isEmpty ? "no document" : "cut or invalid JSON"
        }
        return problem(in: value, id: id, rules: rules)
    }
}
