import LibClient
import LibJSON

/// One line of `lib export` and `lib import` (docs/json/export.schema.json):
/// a book as the server last proved it, `{"path", "id", "fields", "etag"}`,
/// or a book a pull saw deleted, `{"path", "id", "deleted": true}`. The
/// ETag is the version: the protocol gives no other (listings and the
/// change feed carry ETags, not version numbers), and an import changes a
/// book against it.
struct ExportLine: Equatable {
    /// The collection lines name (the only one there is).
    static let collection = "books"
    /// The members a line may have.
    static let members = ["path", "id", "fields", "etag", "deleted"]

    var id: String
    /// The book's fields but `id`; nil: deleted.
    var fields: JSONObject?
    /// The version the line was exported at; nil: none said.
    var etag: String?

    var path: String { "\(Self.collection)/\(id)" }
    var isDeleted: Bool { fields == nil }
    /// The whole book, `id` first; nil for a deleted one.
    var document: JSONObject? { fields.map { JSONObject([("id", .string(id))] + $0.members.map { ($0.key, $0.value) }) } }

    init(id: String, fields: JSONObject?, etag: String?) {
        self.id = id
        self.fields = fields
        self.etag = etag
    }

    /// A cached book as a line; nil when the copy is not a book object with
    /// its path's id (the cache keeps only proven books, so this is a damaged store).
    init?(cached path: String, body: JSONValue?, etag: String?) {
        guard let object = body?.objectValue, let id = object["id"]?.stringValue, path == "\(Self.collection)/\(id)" else {
            return nil
        }
        var fields = JSONObject()
        for (key, value) in object.members.sorted(by: { Self.byteOrder($0.key, $1.key) }) where key != "id" {
            fields[key] = value
        }
        self.init(id: id, fields: fields, etag: etag)
    }

    /// The line's JSON: members in a fixed order and fields by name, so
    /// that two exports of the same books are the same bytes (LibJSON
    /// escapes control characters, DEL, C1 and bidi controls as `\u`).
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("path", .string(path)), ("id", .string(id))]
        if let fields {
            members.append(("fields", .object(fields)))
            members.append(("etag", etag.map(JSONValue.string) ?? .null))
        } else {
            members.append(("deleted", .bool(true)))
        }
        return .object(JSONObject(members))
    }

    /// What is wrong with one line of a file to import, as words after "line N: ".
    struct Problem: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Reads one line and checks it as the server would check the book
    /// (`rules`: the account's book schema): the first problem of its
    /// shape, or every problem of its fields.
    static func parse(_ text: String, rules: BookRules) throws(Problem) -> ExportLine {
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw Problem("not JSON (\(error.reason) at column \(error.column))") }
        guard let object = value.objectValue else { throw Problem("a line must be a JSON object, not \(value.typeName)") }
        let unknown = object.keys.filter { !members.contains($0) }
        guard unknown.isEmpty else {
            throw Problem("unknown member\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", ")); "
                          + "a line has \(members.joined(separator: ", "))")
        }
        guard let idValue = object["id"] else { throw Problem("no \"id\"") }
        guard let id = idValue.stringValue, ResourcePath.isValidID(id) else {
            throw Problem("\"id\" must be 1 to 128 letters, digits, '-', '.', '_' or '~', not \(idValue.serialized())")
        }
        if let pathValue = object["path"] {
            guard pathValue.stringValue == "\(collection)/\(id)" else {
                throw Problem("\"path\" must be \"\(collection)/\(id)\" (lines are books; the id is \"\(id)\"), not \(pathValue.serialized())")
            }
        }
        var etag: String?
        if let etagValue = object["etag"], etagValue != .null {
            guard let text = etagValue.stringValue, !text.isEmpty else { throw Problem("\"etag\" must be a string, not \(etagValue.serialized())") }
            etag = text
        }
        switch object["deleted"] {
        case nil, .bool(false)?:
            break
        case .bool(true)?:
            guard object["fields"] == nil else { throw Problem("a deleted book (\"deleted\": true) has no \"fields\"") }
            return ExportLine(id: id, fields: nil, etag: etag)
        case let other?:
            throw Problem("\"deleted\" must be true or false, not \(other.serialized())")
        }
        guard let fieldsValue = object["fields"] else { throw Problem("no \"fields\" (a deleted book says \"deleted\": true)") }
        guard let fields = fieldsValue.objectValue else { throw Problem("\"fields\" must be an object, not \(fieldsValue.typeName)") }
        guard fields["id"] == nil else { throw Problem("\"fields\" holds \"id\"; the book's id is the line's \"id\"") }
        let line = ExportLine(id: id, fields: fields, etag: etag)
        let problems = rules.problems(in: .object(line.document ?? JSONObject()), id: id)
        guard problems.isEmpty else { throw Problem("\(line.path): " + problems.joined(separator: "; ")) }
        return line
    }

    /// SQLite's and the server's order of paths and names: bytes, not Unicode.
    static func byteOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
}

/// A whole file to import, read and checked before anything is queued:
/// its lines, or every problem with its line number.
struct ImportFile {
    /// At most this many problems are listed; the rest are counted.
    static let problemsShown = 20

    let lines: [ExportLine]
    /// "line 3: not JSON (...)", in line order.
    let problems: [String]

    /// Blank lines are skipped; a book named on two lines is a problem (which one would win?).
    init(text: String, rules: BookRules) {
        var lines: [ExportLine] = []
        var problems: [String] = []
        var firstLine: [String: Int] = [:]
        var number = 0
        // By bytes: a String splits characters, and "\r\n" is one.
        for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let line = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
            if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { continue }
            do {
                let parsed = try ExportLine.parse(String(decoding: line, as: UTF8.self), rules: rules)
                if let earlier = firstLine[parsed.id] {
                    problems.append("line \(number): \(parsed.path) is also on line \(earlier); a book may be named once")
                    continue
                }
                firstLine[parsed.id] = number
                lines.append(parsed)
            } catch {
                problems.append("line \(number): \(error.message)")
            }
        }
        self.lines = lines
        self.problems = problems
    }

    /// The problems as one message: the first `problemsShown`, then how many more.
    var report: String {
        var shown = problems.prefix(Self.problemsShown).joined(separator: "\n")
        if problems.count > Self.problemsShown { shown += "\n… and \(problems.count - Self.problemsShown) more" }
        return shown
    }
}
