#if canImport(Glibc)
import Glibc
#endif
import CSignals
import LibCLI
import LibJSON
import LibBase

/// Lets the user change a JSON document in their own editor (`$VISUAL`,
/// else `$EDITOR`, else `vi`), as `kubectl edit` does: the document goes in
/// a private temporary file; text that is not valid JSON, or not a valid
/// document, reopens the editor with the error on top; the same invalid text
/// saved twice cancels. The editor gets lib's own environment and the file
/// name, never a token: tokens live only in the keyring and in this
/// process's memory.
///
/// The notes on top are `//` comment lines in a `.jsonc` file: JSON with
/// comments, which vim (`syntax/jsonc.vim`), neovim, VS Code and others
/// highlight as comments, where `#` lines were painted as JSON errors. A
/// JSON line never starts with `//` (a string cannot span lines), so they
/// are told apart line by line. Errors give the line and column in the file
/// as the user sees it, header included: comment lines are blanked, not
/// removed, before parsing.
struct DocumentEditor {
    let environment: [String: String]
    /// Shown as comment lines above the document the first time.
    let introduction: [String]
    /// The document's problems (empty when it may be saved).
    let validate: (JSONValue) -> [String]

    static let commentRule = "Lines starting with '//' are ignored; an unchanged or empty file changes nothing."

    /// `books/b-7` → `books-b-7.jsonc`.
    static func fileName(for path: String) -> String {
        String(path.map { $0 == "/" ? "-" : $0 }) + ".jsonc"
    }

    /// The edited document, or nil when the file came back unchanged or empty.
    func edit(_ document: JSONValue, fileName: String) throws -> JSONValue? {
        let directory = try PrivateTemporaryDirectory(parent: environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        defer { directory.remove() }
        let file = directory.path + "/" + fileName
        var notes = introduction
        var body = document.prettyPrinted() + "\n"
        var lastRejected: String?
        while true {
            try Self.writePrivateFile(file, contents: Self.commented(notes) + body)
            try run(on: file, in: directory.path)
            let saved = try Self.read(file)
            let header = Self.headerLineCount(saved)
            let edited = Self.blankingComments(saved)
            if edited.allSatisfy(\.isWhitespace) { return Optional<JSONValue>.none }
            switch Result(catching: { () throws(JSONSyntaxError) in try JSONParser.parse(edited) }) {
            case .failure(let error):
                // The line as it will be in the reopened file, whose header
                // is this sentence and one line of advice.
                let line = error.line - header + 2
                notes = ["The file is not valid JSON: \(error.reason) at line \(line), column \(error.column)."]
            case .success(let value):
                // Not `nil`: JSONValue takes the nil literal as JSON null.
                if value == document { return Optional<JSONValue>.none }
                let found = validate(value)
                if found.isEmpty { return value }
                notes = found.map { "The document is not valid: \($0)." }
            }
            body = Self.dropHeader(saved, lines: header)
            if !body.hasSuffix("\n") { body += "\n" }
            if body == lastRejected {
                throw CommandFailure("Edit cancelled; nothing was changed. " + notes.joined(separator: " "))
            }
            lastRejected = body
            notes.append("Fix it and save, or empty the file to cancel. Lines starting with '//' are ignored.")
        }
    }

    /// `$VISUAL`, then `$EDITOR`, then `vi`: a shell command, as git runs it,
    /// so that `EDITOR="code --wait"` works.
    var command: String {
        for name in ["VISUAL", "EDITOR"] {
            if let value = environment[name], !value.allSatisfy(\.isWhitespace) { return value }
        }
        return "vi"
    }

    /// Runs the editor and waits for it. Meanwhile Ctrl-C and Ctrl-\ are the
    /// editor's (lib removes the file once it exits), and SIGTERM or SIGHUP
    /// remove the file before they end lib.
    private func run(on file: String, in directory: String) throws {
        guard csignals_guard_temporary_file(file, directory) == 0 else {
            throw CommandFailure("Couldn't prepare the editor's temporary file \(file); nothing was changed.")
        }
        defer { csignals_release_temporary_file() }
        let argv = ["/bin/sh", "-c", command + " \"$@\"", command, file]
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = envp.map { strdup($0) } + [nil]
        defer {
            for pointer in cArgs { free(pointer) }
            for pointer in cEnv { free(pointer) }
        }
        // The editor gets the default SIGINT and SIGQUIT that lib ignores meanwhile.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGQUIT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let spawned = posix_spawn(&pid, "/bin/sh", nil, &attributes, cArgs, cEnv)
        guard spawned == 0 else {
            throw CommandFailure("Couldn't start the editor (\(command)): \(String(cString: strerror(spawned))); nothing was changed.")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw CommandFailure("Lost track of the editor (\(command)); nothing was changed.") }
        }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        // Ctrl-C: the editor ended by SIGINT, or a shell in between exited 130.
        if (!exited && status & 0x7f == SIGINT) || (exited && code == 130) {
            throw CommandFailure.interrupted("The editor (\(command)) was interrupted (Ctrl-C); nothing was changed.")
        }
        guard exited && code == 0 else {
            let how = exited ? "exited with status \(code)" : "was stopped by signal \(status & 0x7f)"
            throw CommandFailure("The editor (\(command)) \(how); nothing was changed.")
        }
    }

    static func commented(_ lines: [String]) -> String {
        lines.map { "// " + $0 + "\n" }.joined()
    }

    /// Whether a line is a comment: its first non-blank characters are `//`
    /// (or `#`, as files written by earlier versions had).
    static func isComment<S: StringProtocol>(_ line: S) -> Bool {
        let text = line.drop(while: { $0 == " " || $0 == "\t" })
        return text.hasPrefix("//") || text.hasPrefix("#")
    }

    /// The comment lines at the top of the file.
    static func headerLineCount(_ text: String) -> Int {
        text.split(separator: "\n", omittingEmptySubsequences: false).prefix(while: { isComment($0) }).count
    }

    /// The text with each comment line emptied: what is parsed, so that a
    /// line number in an error is a line of the file as the user sees it.
    static func blankingComments(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { isComment($0) ? "" : $0 }
            .joined(separator: "\n")
    }

    /// The file without its first `lines` lines (the header lib wrote).
    static func dropHeader(_ text: String, lines: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(lines).joined(separator: "\n")
    }

    static func writePrivateFile(_ path: String, contents: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CommandFailure("Couldn't write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(contents.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + offset, raw.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw CommandFailure("Couldn't write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CommandFailure("Couldn't read back \(path): \(String(cString: strerror(errno))); nothing was changed.") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A directory only this user can enter (mkdtemp makes it 0700), removed
/// with what it holds.
struct PrivateTemporaryDirectory {
    let path: String

    init(parent: String) throws {
        var template = Array((parent + "/lib-edit.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw CommandFailure("Couldn't make a temporary directory in \(parent): \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    func remove() {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}
