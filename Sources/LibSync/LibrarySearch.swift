import LibJSON
import LibStore

/// `lib search`: full text over the account's offline library with the
/// unsent writes applied, from the store alone. The cache's books are found
/// through `library_index` (kept by the cache's writes, see LibraryIndex); a
/// book with writes in the outbox is looked for in its local version
/// instead (LocalVersion: a pending edit is found by its new text, a pending
/// delete is not found), through a temporary index of those few documents
/// that never leaves this connection (it works on a read-only store too).
public struct LibrarySearch {
    /// How results are ordered: best matches first (FTS5's bm25), or by a
    /// document field (ascending, documents without it last, ties by rank).
    public enum Order: Sendable, Equatable {
        case relevance
        case field(String)
    }

    let db: Database

    public init(db: Database) { self.db = db }

    static let collectionPrefix = "books/"
    static let tokenizer = "tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'"

    /// What a search found: the first `limit` books, each as this device
    /// knows it, and how many match in all.
    public struct Found {
        public let books: [LocalVersion]
        public let total: Int
        public var truncated: Bool { books.count < total }
    }

    /// Up to `limit` books matching `query`, each as this device knows it.
    public func run(_ query: SearchQuery, order: Order = .relevance, limit: Int) throws -> [LocalVersion] {
        try find(query, order: order, limit: limit).books
    }

    /// The books matching `query` in `order` (SearchRanking for relevance), and their number.
    public func find(_ query: SearchQuery, order: Order = .relevance, limit: Int) throws -> Found {
        let cache = Cache(db: db)
        let writes = Dictionary(grouping: try Outbox(db: db).all().filter { $0.path.hasPrefix(Self.collectionPrefix) }, by: \.path)
        // Books a listing cached but has not indexed yet: read from their copies, as local versions are.
        let lag = try IndexLag.read(String(Self.collectionPrefix.dropLast()), in: db)
        let ranking = SearchRanking(query)
        var hits: [String: (title: String?, author: String?, score: Double)] = [:]
        // With the relevance order only the best are needed: a pool of the
        // best bm25 scores (plus as many as may be replaced by their local
        // versions), and of the shortest titles that hold every word (an
        // exact title is the shortest of them, whatever bm25 thinks of it),
        // and of the best that hold every word in their title and author.
        let pool = limit + writes.count + 200
        let bound = order == .relevance ? " LIMIT \(pool)" : ""
        let bm25 = "bm25(library_index, \(SearchRanking.columnWeights))"
        // The best bm25 scores first; when they are all the matches there
        // are (fewer than the pool), they hold every short title too and
        // their number is the total: one pass over the index instead of three.
        var matched = 0
        for row in try db.query("SELECT path, \(bm25), title, author FROM library_index WHERE library_index MATCH ?1 ORDER BY \(bm25)" + bound,
                                [.text(query.match)]) {
            matched += 1
            guard let path = row[0].text, writes[path] == nil, lag?.contains(path) != true else { continue }
            hits[path] = (row[2].text, row[3].text, row[1].real ?? 0)
        }
        let allMatched = order != .relevance || matched < pool
        if !allMatched {
            for (match, order) in [(ranking.titleMatch(query), "length(title)"), (ranking.titleAndAuthorMatch(query), bm25)] {
                for row in try db.query("SELECT path, \(bm25), title, author FROM library_index WHERE library_index MATCH ?1 ORDER BY \(order) LIMIT \(pool)",
                                        [.text(match)]) {
                    guard let path = row[0].text, writes[path] == nil, lag?.contains(path) != true else { continue }
                    hits[path] = (row[2].text, row[3].text, row[1].real ?? 0)
                }
            }
        }
        var total = allMatched ? matched
            : Int(try db.scalar("SELECT count(*) FROM library_index WHERE library_index MATCH ?1", [.text(query.match)])?.integer ?? 0)
        var local: [String: LocalVersion] = [:]
        if !writes.isEmpty || lag != nil {
            for (path, items) in writes {
                local[path] = LocalVersion(path: path, cached: try cache.document(at: path)?.json, writes: items)
            }
            for document in try lag?.documents(in: db) ?? [] where local[document.path] == nil {
                local[document.path] = LocalVersion(path: document.path, cached: document.json, writes: [])
            }
            // Their cached copies were counted; their local versions count instead.
            let written = JSONValue.array(writes.keys.map { .string($0) }).serialized()
            total -= Int(try db.scalar("""
                SELECT count(*) FROM library_index WHERE library_index MATCH ?1
                    AND (path IN (SELECT value FROM json_each(?2)) OR (path > ?3 AND path <= ?4))
                """, [.text(query.match), .text(written), .text(lag?.low ?? ""), .text(lag?.high ?? "")])?.integer ?? 0)
            let found = try searchLocalVersions(local.values.filter { $0.document != nil }, query)
            total += found.count
            for hit in found {
                let document = local[hit.path]?.document
                hits[hit.path] = (document?["title"]?.stringValue, Self.text(document?["author"]), hit.score)
            }
        }
        var results = try hits.keys.map { path in
            try local[path] ?? LocalVersion(path: path, cached: try cache.document(at: path)?.json, writes: [])
        }
        let keys = Dictionary(uniqueKeysWithValues: hits.map { ($0.key, ranking.key(path: $0.key, title: $0.value.title, author: $0.value.author, score: $0.value.score)) })
        let rank = hits.mapValues(\.score)
        switch order {
        case .relevance:
            results.sort { keys[$0.path]! < keys[$1.path]! }
        case .field(let name):
            results.sort { a, b in
                switch Self.compare(a.document?[name], b.document?[name]) {
                case .some(let less): return less
                case nil: return (rank[a.path] ?? 0, a.path) < (rank[b.path] ?? 0, b.path)
                }
            }
        }
        return Found(books: Array(results.prefix(limit)), total: max(total, results.count))
    }

    /// The local versions that match, scored within their own small index.
    private func searchLocalVersions(_ versions: [LocalVersion], _ query: SearchQuery) throws -> [(path: String, score: Double)] {
        guard !versions.isEmpty else { return [] }
        try db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.local_index USING fts5(path UNINDEXED, title, author, tags, \(Self.tokenizer))")
        try db.execute("DELETE FROM temp.local_index")
        defer { try? db.execute("DELETE FROM temp.local_index") }
        for version in versions {
            guard let document = version.document else { continue }
            let tags = document["tags"]?.arrayValue?.compactMap(\.stringValue).joined(separator: " ")
            try db.run("INSERT INTO temp.local_index (path, title, author, tags) VALUES (?1, ?2, ?3, ?4)",
                       [.text(version.path), SQLValue(Self.text(document["title"]).map(LetterFolding.fold)),
                        SQLValue(Self.text(document["author"]).map(LetterFolding.fold)), SQLValue(tags.map(LetterFolding.fold))])
        }
        return try db.query("SELECT path, bm25(local_index, \(SearchRanking.columnWeights)) FROM temp.local_index WHERE local_index MATCH ?1",
                            [.text(query.match)]).compactMap { row in
            row[0].text.map { ($0, row[1].real ?? 0) }
        }
    }

    /// A field as the index holds it: a string, or a number's digits.
    private static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?: return s
        case .integer(let n)?: return String(n)
        default: return nil
        }
    }

    /// Whether `a` sorts before `b` (numbers by value, text ignoring case;
    /// missing values last); nil when they tie.
    static func compare(_ a: JSONValue?, _ b: JSONValue?) -> Bool? {
        switch (a, b) {
        case (nil, nil), (.null?, .null?): return nil
        case (nil, _), (.null?, _): return false
        case (_, nil), (_, .null?): return true
        case (.integer(let x)?, .integer(let y)?): return x == y ? nil : x < y
        case (let a?, let b?):
            let x = sortKey(a), y = sortKey(b)
            return x == y ? nil : x < y
        }
    }

    private static func sortKey(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return s.lowercased()
        case .array(let items): return items.compactMap(\.stringValue).joined(separator: " ").lowercased()
        default: return value.serialized()
        }
    }
}
