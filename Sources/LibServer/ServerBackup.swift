import Foundation
import LibStore

/// `lib-server backup`: a consistent copy of a live SQLite database, made
/// with SQLite's online backup API while servers go on writing to it. The
/// copy is written beside the target under a temporary name (mode 0600),
/// checked, made a single self-contained file (no WAL), synced, and only
/// then given the target's name: a backup file is whole or absent.
enum ServerBackup {
    /// What a backup copied, for its closing line.
    struct Report {
        let books: Int
        let bytes: Int
        let seconds: Double
    }

    static func run(_ options: BackupOptions) throws -> Report {
        let started = Date()
        let source = try ServerBackup.openExisting(options.database, role: "--db")
        let target = options.target
        if !options.replace, FileManager.default.fileExists(atPath: target) {
            throw ServerCommandFailure("\(target) exists; give --replace to overwrite it")
        }
        if let same = samePath(target, options.database), same {
            throw ServerCommandFailure("--to names the database itself (\(options.database)); back it up to another file")
        }
        let temporary = try temporaryFile(beside: target)
        var kept = false
        defer { if !kept { unlink(temporary) } }
        var books = 0, bytes = 0
        do {
            var copyOptions = DatabaseOptions()
            copyOptions.create = false
            copyOptions.walJournal = false
            let copy = try Database(path: temporary, options: copyOptions)
            // 1,024 pages (4 MiB) a step: each step holds SQLite's locks briefly.
            bytes = try source.copy(into: copy, pagesPerStep: 1024).bytes
            // One file, readable without its -wal and -shm.
            _ = try copy.scalar("PRAGMA journal_mode=DELETE")
            let problems = try copy.query("PRAGMA quick_check").compactMap { $0[0].text }
            guard problems == ["ok"] else {
                throw ServerCommandFailure("the copy of \(options.database) failed its check: \(problems.prefix(3).joined(separator: "; "))")
            }
            books = Int(try copy.scalar("SELECT count(*) FROM books WHERE document IS NOT NULL")?.integer ?? 0)
        }
        try syncFile(temporary)
        try moveIntoPlace(temporary, target, replacing: options.replace)
        kept = true
        return Report(books: books, bytes: bytes, seconds: Date().timeIntervalSince(started))
    }

    /// An existing lib-server SQLite database, opened without creating
    /// anything; each way it can be wrong is named. `readOnly`: a backup
    /// file, never changed by reading it.
    static func openExisting(_ path: String, role: String, readOnly: Bool = false) throws -> Database {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ServerCommandFailure("\(role) \(path): \(errno == ENOENT ? "no such file" : String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw ServerCommandFailure("\(role) \(path) is not a file") }
        var options = DatabaseOptions()
        options.create = false
        options.readOnly = readOnly
        let database: Database
        do { database = try Database(path: path, options: options) } catch {
            throw ServerCommandFailure("\(role) \(path) is not an SQLite database that can be opened: \(error.message)")
        }
        let tables = try database.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('books', 'change_feed')")
        guard tables.count == 2 else { throw ServerCommandFailure("\(role) \(path) is not a lib-server database (it has no books and change_feed tables)") }
        return database
    }

    /// A new file (0600) in `target`'s directory, for the copy to fill.
    private static func temporaryFile(beside target: String) throws -> String {
        let url = URL(fileURLWithPath: target)
        let directory = url.deletingLastPathComponent().path
        var template = Array((directory + "/." + url.lastPathComponent + ".partial-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else {
            throw ServerCommandFailure("cannot write the backup in \(directory): \(String(cString: strerror(errno)))")
        }
        fchmod(fd, 0o600)
        close(fd)
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether two paths name one file (nil: `a` does not exist).
    private static func samePath(_ a: String, _ b: String) -> Bool? {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return nil }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw ServerCommandFailure("cannot sync \(path): \(reason)")
        }
        close(fd)
    }

    /// Renames the finished copy to `target`; without `replacing`, a hard
    /// link, which fails rather than overwrite a file made meanwhile. Then
    /// syncs the directory, so the name survives a crash.
    private static func moveIntoPlace(_ temporary: String, _ target: String, replacing: Bool) throws {
        if replacing {
            guard rename(temporary, target) == 0 else {
                throw ServerCommandFailure("cannot write \(target): \(String(cString: strerror(errno)))")
            }
        } else {
            guard link(temporary, target) == 0 else {
                if errno == EEXIST { throw ServerCommandFailure("\(target) exists; give --replace to overwrite it") }
                throw ServerCommandFailure("cannot write \(target): \(String(cString: strerror(errno)))")
            }
            unlink(temporary)
        }
        let directory = open(URL(fileURLWithPath: target).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}

/// A command that could not do its job, with the sentence that says why (exit 1).
struct ServerCommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
