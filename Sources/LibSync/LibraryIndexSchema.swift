import LibStore

/// Migrations `005-library-index`, `006-library-index-kept-by-code` and
/// `008-library-index-folds-letters`: the
/// full-text index `lib search` reads (FTS5 over each cached book's title,
/// author and tags). Books already cached are indexed by 005. 005 also made
/// triggers on `documents` to keep the index; 006 drops them, as SQLite
/// parses every trigger at each open of the store (0.45 M instructions of
/// `lib get --offline`'s 2.6 M). The cache's own writes keep it instead, in
/// the same transaction (LibraryIndex).
///
/// `documents` is a WITHOUT ROWID table keyed by path, and FTS5 rows are
/// keyed by an integer: `library_index_rows` maps each path to its row.
enum LibraryIndexSchema {
    static let name = "005-library-index"
    static let triggersDropped = "006-library-index-kept-by-code"
    static let lettersFolded = "008-library-index-folds-letters"

    /// The indexed text of a cached body (`B`: a column, a bound parameter,
    /// or NEW.body in 005's triggers): nothing for a body that is not JSON,
    /// tags joined by spaces; from 008 on with ø, æ, ß, đ, ł … folded
    /// (LetterFolding), as the typed query is.
    static func columns(_ b: String, folded: Bool = true) -> String {
        columns(b) { folded ? LetterFolding.sql($0) : $0 }
    }

    /// `columns`, folded by `LetterFolding.function` (which the connection
    /// must define first, with `TagWords.function`: `LetterFolding.define`) instead of nested
    /// `replace`s: the same text, at a fraction of the cost (indexing a
    /// first pull of 100,000 books: 1.5 s of CPU with the `replace`s, 0.8 s without).
    /// The tags are read by `TagWords.function` from their array's JSON
    /// text (the same words, without `json_each` for each book).
    static func columnsFoldedByFunction(_ b: String) -> String {
        """
        \(LetterFolding.function)(CASE WHEN json_valid(\(b)) THEN json_extract(\(b), '$.title') END),
        \(LetterFolding.function)(CASE WHEN json_valid(\(b)) THEN json_extract(\(b), '$.author') END),
        \(TagWords.function)(CASE WHEN json_valid(\(b)) THEN CASE WHEN json_type(\(b), '$.tags') = 'array'
            THEN json_extract(\(b), '$.tags') END END)
        """
    }

    private static func columns(_ b: String, fold: (String) -> String) -> String {
        """
        \(fold("CASE WHEN json_valid(\(b)) THEN json_extract(\(b), '$.title') END")),
        \(fold("CASE WHEN json_valid(\(b)) THEN json_extract(\(b), '$.author') END")),
        \(fold("""
            CASE WHEN json_valid(\(b)) THEN CASE WHEN json_type(\(b), '$.tags') = 'array'
                THEN (SELECT group_concat(value, ' ') FROM json_each(\(b), '$.tags')) END END
            """))
        """
    }

    /// 008: every cached book indexed again, its letters folded.
    static var reindexFolded: String {
        """
        DELETE FROM library_index;
        INSERT INTO library_index (rowid, path, title, author, tags)
            SELECT r.docid, d.path, \(columns("d.body")) FROM documents d JOIN library_index_rows r ON r.path = d.path;
        """
    }

    static let sql = """
        CREATE VIRTUAL TABLE library_index USING fts5(
            path UNINDEXED, title, author, tags,
            tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
        CREATE TABLE library_index_rows (
            path TEXT PRIMARY KEY NOT NULL,
            docid INTEGER NOT NULL UNIQUE
        ) WITHOUT ROWID;
        CREATE TRIGGER library_index_insert AFTER INSERT ON documents WHEN substr(NEW.path, 1, 6) = 'books/' BEGIN
            INSERT INTO library_index_rows (path, docid)
                VALUES (NEW.path, (SELECT COALESCE(MAX(docid), 0) + 1 FROM library_index_rows));
            INSERT INTO library_index (rowid, path, title, author, tags)
                VALUES ((SELECT docid FROM library_index_rows WHERE path = NEW.path), NEW.path, \(columns("NEW.body", folded: false)));
        END;
        CREATE TRIGGER library_index_update AFTER UPDATE OF body ON documents WHEN substr(NEW.path, 1, 6) = 'books/' BEGIN
            DELETE FROM library_index WHERE rowid = (SELECT docid FROM library_index_rows WHERE path = NEW.path);
            INSERT INTO library_index (rowid, path, title, author, tags)
                VALUES ((SELECT docid FROM library_index_rows WHERE path = NEW.path), NEW.path, \(columns("NEW.body", folded: false)));
        END;
        CREATE TRIGGER library_index_delete AFTER DELETE ON documents WHEN substr(OLD.path, 1, 6) = 'books/' BEGIN
            DELETE FROM library_index WHERE rowid = (SELECT docid FROM library_index_rows WHERE path = OLD.path);
            DELETE FROM library_index_rows WHERE path = OLD.path;
        END;
        INSERT INTO library_index_rows (path, docid)
            SELECT path, row_number() OVER (ORDER BY path) FROM documents WHERE substr(path, 1, 6) = 'books/';
        INSERT INTO library_index (rowid, path, title, author, tags)
            SELECT r.docid, d.path, \(columns("d.body", folded: false)) FROM documents d JOIN library_index_rows r ON r.path = d.path;
        """

    static let dropTriggers = """
        DROP TRIGGER IF EXISTS library_index_insert;
        DROP TRIGGER IF EXISTS library_index_update;
        DROP TRIGGER IF EXISTS library_index_delete;
        """
}
