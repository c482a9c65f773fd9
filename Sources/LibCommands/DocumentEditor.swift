#if canImport(Glibc)
import Glibc
#endif
import LibCLI
import LibJSON

/// Lets the user change a JSON document in their own editor (`$VISUAL`,
/// else `$EDITOR`, else `vi`), as `kubectl edit` does: the document goes in
/// a private temporary file; text that is not valid JSON, or not a valid
/// document, reopens the editor with the error on top as `#` comment lines
/// (stripped when read back); the same invalid text saved twice cancels.
/// The editor gets lib's own environment and the file name, never a token:
/// tokens live only in the keyring and in this process's memory.
struct DocumentEditor {
    let environment: [String: String]
    /// Shown as comment lines above the document the first time.
    let introduction: [String]
    /// The document's problems (empty when it may be saved).
    let validate: (JSONValue) -> [String]

    /// The edited document, or nil when the file came back unchanged or empty.
    func edit(_ document: JSONValue, fileName: String) throws -> JSONValue? {
        let directory = try PrivateTemporaryDirectory(parent: environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp")
        defer { directory.remove() }
        let file = directory.path + "/" + fileName
        var notes = introduction
        var text = document.prettyPrinted() + "\n"
        var lastRejected: String?
        while true {
            try Self.writePrivateFile(file, contents: Self.commented(notes) + text)
            try run(on: file)
            let edited = Self.strippingComments(try Self.read(file))
            if edited.allSatisfy(\.isWhitespace) { return Optional<JSONValue>.none }
            let problems: [String]
            switch Result(catching: { () throws(JSONSyntaxError) in try JSONParser.parse(edited) }) {
            case .failure(let error):
                problems = ["The file is not valid JSON: \(error)."]
            case .success(let value):
                let found = validate(value)
                // Not `nil`: JSONValue takes the nil literal as JSON null.
                if found.isEmpty { return value == document ? Optional<JSONValue>.none : value }
                problems = found.map { "The document is not valid: \($0)." }
            }
            if edited == lastRejected {
                throw CommandFailure("Edit cancelled; nothing was changed. " + problems.joined(separator: " "))
            }
            lastRejected = edited
            text = edited.hasSuffix("\n") ? edited : edited + "\n"
            notes = problems + ["Fix it and save, or empty the file to cancel. Lines starting with '#' are ignored."]
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

    private func run(on file: String) throws {
        let argv = ["/bin/sh", "-c", command + " \"$@\"", command, file]
        let envp = environment.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        let cEnv = envp.map { strdup($0) } + [nil]
        defer {
            for pointer in cArgs { free(pointer) }
            for pointer in cEnv { free(pointer) }
        }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, cArgs, cEnv)
        guard spawned == 0 else {
            throw CommandFailure("Couldn't start the editor (\(command)): \(String(cString: strerror(spawned))); nothing was changed.")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw CommandFailure("Lost track of the editor (\(command)); nothing was changed.") }
        }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let how = exited ? "exited with status \(code)" : "was stopped by signal \(status & 0x7f)"
            throw CommandFailure("The editor (\(command)) \(how); nothing was changed.")
        }
    }

    static func commented(_ lines: [String]) -> String {
        lines.map { "# " + $0 + "\n" }.joined()
    }

    /// Drops the lines whose first non-blank character is `#`: JSON never
    /// starts a line that way (a string cannot span lines).
    static func strippingComments(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("#") }
            .joined(separator: "\n")
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
