import LibBase
import LibStore

/// "Did you mean …?" for a search that found nothing (issue 49): each word
/// of the query that no indexed word starts with is replaced by the indexed
/// word nearest to it (Suggestions.nearest), the one in most books when
/// several are as near. The candidates are FTS5's own vocabulary of the
/// index (fts5vocab), so only a word a search can find is suggested.
extension LibrarySearch {
    /// The query with each unknown word replaced by one near it; nil when
    /// every word is known, or when one has nothing near.
    public func suggestion(for query: SearchQuery) throws -> SearchQuery? {
        // In temp, like the local versions' index: it works on a read-only store too.
        try db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.library_words USING fts5vocab(main, library_index, row)")
        var words: [String] = []
        var replaced = false
        for word in query.words.map({ $0.lowercased() }) {
            if try db.scalar("SELECT 1 FROM library_index WHERE library_index MATCH ?1 LIMIT 1", [.text("\"\(word)\"*")]) != nil {
                words.append(word)
                continue
            }
            // Nothing farther than 2 edits is suggested: longer or shorter words are not read.
            let length = Int64(word.count)
            let candidates = try db.query("SELECT term FROM temp.library_words WHERE length(term) BETWEEN ?1 AND ?2 ORDER BY doc DESC",
                                          [.integer(length - 2), .integer(length + 2)]).compactMap { $0[0].text }
            guard let nearest = Suggestions.nearest(to: word, among: candidates).first else { return nil }
            words.append(nearest)
            replaced = true
        }
        return replaced ? SearchQuery(words.joined(separator: " ")) : nil
    }
}
