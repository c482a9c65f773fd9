/// The order `lib search` puts matches in, as a reader judges them: a book
/// titled exactly what was typed first, then books whose title holds every
/// word, then books whose title and author hold every word (`jane austen`),
/// then FTS5's bm25 with the title weighing most, then the author, then the
/// tags; ties by title, then by id in natural order (g-1103 after g-999).
/// The man page says the same.
///
/// The author's tier is needed because bm25 divides by the length of the
/// whole row: a book with many tags lost its author match to books that
/// only had the word as a tag (issue 49).
struct SearchRanking {
    /// bm25's weight of each column of `library_index` (path, title, author, tags).
    static let columnWeights = "0.0, 10.0, 4.0, 1.0"

    let words: [String]

    init(_ query: SearchQuery) { words = query.words.map { $0.lowercased() } }

    /// How one match ranks: smaller sorts first.
    struct Key: Comparable {
        let exactTitle: Bool
        let wholeTitle: Bool
        let wholeTitleAndAuthor: Bool
        let score: Double
        let title: String
        let path: String

        static func < (a: Key, b: Key) -> Bool {
            if a.exactTitle != b.exactTitle { return a.exactTitle }
            if a.wholeTitle != b.wholeTitle { return a.wholeTitle }
            if a.wholeTitleAndAuthor != b.wholeTitleAndAuthor { return a.wholeTitleAndAuthor }
            if a.score != b.score { return a.score < b.score }
            if a.title != b.title { return a.title < b.title }
            return SearchRanking.naturallyBefore(a.path, b.path)
        }
    }

    /// `score`: bm25 with `columnWeights` (lower is better).
    func key(path: String, title: String?, author: String?, score: Double) -> Key {
        let titleWords = Self.words(title), authorWords = Self.words(author)
        let holdsEveryWord = { (text: [String]) in words.allSatisfy { word in text.contains { $0.hasPrefix(word) } } }
        return Key(exactTitle: titleWords == words, wholeTitle: holdsEveryWord(titleWords),
                   wholeTitleAndAuthor: holdsEveryWord(titleWords + authorWords),
                   score: score, title: LetterFolding.fold(title ?? "").lowercased(), path: path)
    }

    private static func words(_ text: String?) -> [String] {
        (text.flatMap(SearchQuery.init)?.words ?? []).map { $0.lowercased() }
    }

    /// The FTS5 query for books whose title holds every word (as prefixes):
    /// asked apart, shortest titles first, so that an exact title is never
    /// lost behind the best bm25 scores.
    func titleMatch(_ query: SearchQuery) -> String {
        query.words.map { "title : \"\($0)\"*" }.joined(separator: " AND ")
    }

    /// The FTS5 query for books whose title and author hold every word:
    /// asked apart too, so that bm25 never leaves them out of the pool.
    func titleAndAuthorMatch(_ query: SearchQuery) -> String {
        query.words.map { "{title author} : \"\($0)\"*" }.joined(separator: " AND ")
    }

    /// Digits compared as numbers, the rest byte by byte: "g-999" < "g-1103".
    static func naturallyBefore(_ a: String, _ b: String) -> Bool {
        var x = a.utf8[...], y = b.utf8[...]
        let isDigit = { (byte: UInt8) in byte >= 48 && byte <= 57 }
        while let p = x.first, let q = y.first {
            if isDigit(p) && isDigit(q) {
                let m = x.prefix(while: isDigit), n = y.prefix(while: isDigit)
                let mTrimmed = m.drop { $0 == 48 }, nTrimmed = n.drop { $0 == 48 }
                if mTrimmed.count != nTrimmed.count { return mTrimmed.count < nTrimmed.count }
                if !mTrimmed.elementsEqual(nTrimmed) { return mTrimmed.lexicographicallyPrecedes(nTrimmed) }
                x = x.dropFirst(m.count)
                y = y.dropFirst(n.count)
            } else {
                if p != q { return p < q }
                x = x.dropFirst()
                y = y.dropFirst()
            }
        }
        return x.count < y.count
    }
}
