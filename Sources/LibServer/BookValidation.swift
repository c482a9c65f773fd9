import LibJSON

/// What the server does with a book besides the schema's rules
/// (`LibBookSchema`): the stored form, and which ids a path may carry.
enum BookValidation {
    /// The document as stored: `id` first, then the other fields as sent.
    static func normalized(_ document: JSONObject, id: String) -> JSONObject {
        var result = JSONObject([("id", .string(id))])
        for (key, value) in document where key != "id" { result[key] = value }
        return result
    }

    /// Book ids are path segments: letters, digits and `-._~`, 1 to 128 of them.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".") || b == UInt8(ascii: "_") || b == UInt8(ascii: "~")
        } && id != "." && id != ".."
    }
}
