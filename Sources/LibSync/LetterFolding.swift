import LibStore

/// The letters search folds that FTS5's `remove_diacritics` cannot: they
/// have no decomposition into a base letter and a mark (ø is not o + a
/// mark, as é is e + ´). Both the index (as SQL, over what it stores) and
/// the typed query (in Swift) fold them the same way, so `soren` finds
/// "Søren", `aesop` "Æsop" and `strasse` "Straße" — and the other way round.
enum LetterFolding {
    /// Each letter and what it is searched as.
    static let pairs: [(letter: Unicode.Scalar, as: String)] = [
        ("ø", "o"), ("Ø", "O"), ("æ", "ae"), ("Æ", "AE"), ("œ", "oe"), ("Œ", "OE"),
        ("ß", "ss"), ("ẞ", "SS"), ("đ", "d"), ("Đ", "D"), ("ł", "l"), ("Ł", "L"),
    ]

    private static let table: [Unicode.Scalar: String] = Dictionary(uniqueKeysWithValues: pairs.map { ($0.letter, $0.as) })

    /// `text` with those letters replaced (everything else as it was).
    static func fold(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }), text.unicodeScalars.contains(where: { table[$0] != nil }) else { return text }
        var folded = ""
        for scalar in text.unicodeScalars {
            if let replacement = table[scalar] { folded += replacement } else { folded.unicodeScalars.append(scalar) }
        }
        return folded
    }

    /// The SQL function that calls `fold`, on connections that `define` it.
    static let function = "lib_fold_letters"

    /// Makes `function` callable on `db` (once per connection).
    static func define(on db: Database) throws {
        try db.defineTextFunction(function, keeps: isASCII, fold)
        try TagWords.define(on: db)
    }

    /// Every letter folded is outside ASCII: ASCII text is kept as it is.
    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool { utf8.allSatisfy { $0 < 0x80 } }

    /// The SQL expression of `fold` over `expression` (nested `replace`s),
    /// for SQL run where `function` is not defined (migrations).
    static func sql(_ expression: String) -> String {
        pairs.reduce(expression) { inner, pair in "replace(\(inner), '\(pair.letter)', '\(pair.as)')" }
    }
}
