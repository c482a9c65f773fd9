#if canImport(Glibc)
import Glibc
#endif

/// Shows long output through a pager on a terminal, as git does: `PAGER`
/// (or `LIB_PAGER`, which wins), else `less` with `LESS=FRX` when LESS is
/// unset, so that output shorter than a screen is printed and less exits.
/// Off a terminal, on a terminal that cannot page (`TERM` unset or `dumb`:
/// less would stop to warn), with an empty PAGER or `cat`, the text is
/// written as is.
public struct Pager: Sendable {
    /// The shell command to run, or nil to write directly.
    public let command: String?
    let environment: [String: String]

    public init(context: CommandContext) {
        environment = context.environment
        let term = context.environment["TERM"] ?? ""
        guard context.standardOutput.isTerminal, context.standardOutput.descriptor != nil, !term.isEmpty, term != "dumb" else {
            command = nil
            return
        }
        let chosen = context.environment["LIB_PAGER"] ?? context.environment["PAGER"] ?? "less"
        let trimmed = chosen.trimmingSpaces
        let program = String(trimmed.prefix { !$0.isWhitespace })
        command = trimmed.isEmpty || trimmed == "cat" || !Self.canRun(program, path: context.environment["PATH"]) ? nil : trimmed
    }

    /// Whether the program exists: a path, or a name found in PATH (a
    /// missing pager must not swallow the output).
    static func canRun(_ program: String, path: String?) -> Bool {
        if program.contains("/") { return access(program, X_OK) == 0 }
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return directories.contains { access("\($0)/\(program)", X_OK) == 0 }
    }

    /// Writes `text` through the pager, or to standard output when there is
    /// none or it cannot be started.
    public func show(_ text: String, _ context: CommandContext) {
        guard let command, let descriptor = context.standardOutput.descriptor else {
            context.standardOutput.write(text)
            return
        }
        context.standardOutput.flush()
        if !run(command, text: context.standardOutput.asciiOnly ? ASCIIWords.transliterated(text) : text, output: descriptor) {
            context.standardOutput.write(text)
        }
    }

    /// Runs `sh -c COMMAND` with `text` on its standard input; false when it could not start.
    private func run(_ command: String, text: String, output: Int32) -> Bool {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return false }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, output, STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])

        var variables = environment
        if variables["LESS"] == nil { variables["LESS"] = "FRX" }
        if variables["LV"] == nil { variables["LV"] = "-c" }
        let arguments = ["/bin/sh", "-c", command]
        let environmentLines = variables.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let started = withCStrings(arguments) { argv in
            withCStrings(environmentLines) { envp in
                posix_spawn(&pid, "/bin/sh", &actions, nil, argv, envp) == 0
            }
        }
        close(pipeEnds[0])
        guard started else {
            close(pipeEnds[1])
            return false
        }
        // A pager that quits early closes the pipe: ignore SIGPIPE meanwhile.
        let previous = signal(SIGPIPE, SIG_IGN)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(pipeEnds[1], $0.baseAddress, $0.count) }
            if written > 0 { bytes = bytes.dropFirst(written) } else if written < 0 && errno == EINTR { continue } else { break }
        }
        close(pipeEnds[1])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        signal(SIGPIPE, previous)
        return true
    }
}

/// Calls `body` with a NULL-terminated array of C strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return String(text)
    }
}
