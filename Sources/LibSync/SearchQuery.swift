/// What the user typed for `lib search`, as an FTS5 query: each word a
/// prefix (`dun herb` finds "Dune" by "Frank Herbert"), every word
/// required. Words are split as FTS5's unicode61 tokenizer splits them
/// (letters and digits; everything else separates), and each is quoted,
/// so nothing typed is ever FTS5 syntax (`AND`, `NEAR`, `"`, `*`, `:`).
/// Letters FTS5 cannot fold (ø, æ, ß, đ, ł …) are folded as the index
/// folds them (LetterFolding).
public struct SearchQuery: Sendable, Equatable {
    public let words: [String]

    /// nil when the text has no word to look for.
    public init?(_ text: String) {
        let words = Self.words(text).map(LetterFolding.fold)
        guard !words.isEmpty else { return nil }
        // A word said twice finds nothing more: the search costs what the
        // different words cost (20,000 repeats of one word are one word).
        var seen: Set<String> = []
        self.words = words.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The most different words a search takes: each is a prefix match
    /// over the whole index.
    public static let maxWords = 32

    /// `"dun"* AND "herb"*`
    public var match: String { words.map { "\"\($0)\"*" }.joined(separator: " AND ") }
}

extension SearchQuery {
    /// The words of a text as FTS5's unicode61 tokenizer splits them: runs of letters and digits.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }
}
