import LibJSON
import LibStore

/// `--demo`: users alice and bob (librarians) and carol (reader), with
/// passwords `NAME-demo`, and books b-1 … b-20 (b-7 is Dune). Users are
/// added when missing; books only into a database that never had any, so a
/// restart with `--demo` never undoes what was written since.
enum DemoData {
    static let users: [(String, Role)] = [("alice", .librarian), ("bob", .librarian), ("carol", .reader)]

    static let books: [(title: String, author: String, year: Int64, tags: [String])] = [
        ("Pride and Prejudice", "Jane Austen", 1813, ["classic", "romance"]),
        ("Moby-Dick", "Herman Melville", 1851, ["classic", "sea"]),
        ("The Left Hand of Darkness", "Ursula K. Le Guin", 1969, ["sf"]),
        ("Things Fall Apart", "Chinua Achebe", 1958, ["classic"]),
        ("One Hundred Years of Solitude", "Gabriel García Márquez", 1967, ["magical realism"]),
        ("Frankenstein", "Mary Shelley", 1818, ["classic", "horror"]),
        ("Dune", "Frank Herbert", 1965, ["sf", "classic"]),
        ("Beloved", "Toni Morrison", 1987, ["historical"]),
        ("The Name of the Rose", "Umberto Eco", 1980, ["mystery", "historical"]),
        ("Neuromancer", "William Gibson", 1984, ["sf", "cyberpunk"]),
        ("Middlemarch", "George Eliot", 1871, ["classic"]),
        ("The Master and Margarita", "Mikhail Bulgakov", 1967, ["classic", "satire"]),
        ("Kindred", "Octavia E. Butler", 1979, ["sf", "historical"]),
        ("Invisible Cities", "Italo Calvino", 1972, ["fiction"]),
        ("The Remains of the Day", "Kazuo Ishiguro", 1989, ["fiction"]),
        ("Foundation", "Isaac Asimov", 1951, ["sf"]),
        ("Jane Eyre", "Charlotte Brontë", 1847, ["classic", "romance"]),
        ("The Hobbit", "J. R. R. Tolkien", 1937, ["fantasy"]),
        ("Ficciones", "Jorge Luis Borges", 1944, ["short stories"]),
        ("Station Eleven", "Emily St. John Mandel", 2014, ["fiction"]),
    ]

    /// Safe to run by several servers at once on a new database: users are
    /// added unless present, and the books by whichever transaction first
    /// finds the database without any.
    static func install(in store: ServerStore, at now: Double) throws {
        for (name, role) in users {
            if try store.read({ try UserDirectory.userExists(name, in: $0) }) { continue }
            _ = try UserDirectory.addUserIfMissing(name, password: "\(name)-demo", role: role, at: now, in: store)
        }
        try store.write { db in
            try db.lock("demo-books")
            guard try db.scalar("SELECT count(*) FROM books")?.integer == 0 else { return }
            for (i, book) in books.enumerated() {
                let id = "b-\(i + 1)"
                let document = JSONObject([
                    ("id", .string(id)), ("title", .string(book.title)), ("author", .string(book.author)),
                    ("year", .integer(book.year)), ("copies", .integer(Int64(i % 4 + 1))),
                    ("tags", .array(book.tags.map { .string($0) })),
                ])
                _ = try BookStore.write(id, document: document, over: nil, by: "demo", at: now, in: db)
            }
            let changes = books.indices.map { ChangeLog.Change(id: "b-\($0 + 1)", deleted: false) }
            try ChangeLog.record(changes, by: nil, at: now, retention: ChangeLog.defaultRetention, in: db)
        }
    }
}
