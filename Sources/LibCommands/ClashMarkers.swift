import LibSync
import LibJSON

/// How `lib resolve --edit` puts both values of a clashing field in the
/// file: the field's value becomes a small object with a marker key per side,
///
///     "title": {"<<< mine": "Dune (alice)", ">>> theirs": "Dune (bob)"}
///
/// Still valid JSON, so the editor's highlighting stays right and the file
/// parses; a document in which a marker key is left is refused, naming the
/// field, until the user keeps one value. A side that removes the field
/// shows `null`.
enum ClashMarkers {
    static let mine = "<<< mine"
    static let theirs = ">>> theirs"

    /// The merge with each clashing field replaced by its marked pair.
    static func marked(_ merge: FieldMerge, mine: JSONObject, theirs: JSONObject) -> JSONObject {
        var document = merge.merged
        for field in merge.clashes {
            document[field] = .object(JSONObject([(Self.mine, mine[field] ?? .null), (Self.theirs, theirs[field] ?? .null)]))
        }
        return document
    }

    /// One sentence per field that still holds a marker; empty when none is left.
    static func problems(in document: JSONValue) -> [String] {
        guard let object = document.objectValue else { return [] }
        return object.compactMap { field, value in
            guard containsMarker(value) else { return nil }
            return "'\(field)' still holds both values between markers (\"\(mine)\" and \"\(theirs)\"): keep the one you want"
        }
    }

    private static func containsMarker(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let object):
            return object.keys.contains { $0 == mine || $0 == theirs } || object.contains { containsMarker($0.value) }
        case .array(let items):
            return items.contains(where: containsMarker)
        default:
            return false
        }
    }
}
