#if canImport(Glibc)
import Glibc
#endif
import LibAccounts
import LibSync

/// `<account directory>/prompt`: the account's prompt segment, kept ready
/// so that the shell snippets in `contrib/prompt` show it with shell
/// built-ins alone, starting no process (p10k's gitstatus idea, without a
/// daemon). Always right or absent: removed before an outbox change starts,
/// written after it commits, both under `prompt.lock`, which is held from
/// the removal to the new file; so a crash at any point leaves no file
/// (the snippets then ask `lib status --prompt`), never a wrong one. Any
/// command that opens the store writes a missing one.
final class PromptFile: OutboxObserver {
    let path: String
    private let lockPath: String
    private let name: String
    private let setAside: () -> Int
    private var lockDescriptor: Int32 = -1
    private var holdsLock = false

    init(_ workspace: AccountWorkspace) {
        let directory = workspace.paths.accountDirectory(workspace.name)
        path = directory + "/prompt"
        lockPath = directory + "/prompt.lock"
        name = PromptSegment.shortName(of: workspace.account, among: workspace.index.accounts)
        let setAside = workspace.setAside, key = workspace.identityKey
        self.setAside = { setAside.count(for: key) }
    }

    deinit { if lockDescriptor >= 0 { close(lockDescriptor) } }

    /// The segment for these outbox counts.
    func segment(_ counts: OutboxSummary) -> PromptSegment {
        PromptSegment(name: name, pending: counts.pending, conflicts: counts.conflicts,
                      rejected: counts.rejected, setAside: setAside(), behind: counts.behind)
    }

    /// The segment as the file has it (the UTF-8 or the ASCII line); when
    /// the file is missing, from the store, writing the file again.
    func text(unicode: Bool, storePath: String) -> String {
        if let contents = Self.read(path) {
            let lines = contents.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count >= 2 ? String(lines[unicode ? 0 : 1]) : ""
        }
        let counts = OutboxSummary.readIfPresent(storePath: storePath) ?? OutboxSummary()
        writeIfMissing { OutboxSummary.readIfPresent(storePath: storePath) }
        return segment(counts).text(unicode: unicode)
    }

    /// A small file's contents; nil when it cannot be read.
    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the file when it is missing and no change is under way (one
    /// is when the lock is taken: its writer will write the file).
    func writeIfMissing(_ counts: () -> OutboxSummary?) {
        guard !holdsLock, access(path, F_OK) != 0, lock(wait: false) else { return }
        defer { unlock() }
        if access(path, F_OK) != 0, let counts = counts() { write(segment(counts)) }
    }

    /// Writes the file again from these counts (after a change this lock's
    /// holder did not make through the outbox, such as restoring set-aside writes).
    func rewrite(_ counts: OutboxSummary) {
        guard !holdsLock, lock(wait: true) else { unlink(path); return }
        defer { unlock() }
        unlink(path)
        write(segment(counts))
    }

    /// Removes the prompt files of the other accounts with this account's
    /// user name, whose short names depend on it; each is written again by
    /// the next command that opens its store (or `lib status --prompt`).
    static func forgetNamesakes(of account: Account, in index: AccountIndex, paths: AccountPaths) {
        for other in index.accounts where other.username == account.username && other.name != account.name {
            unlink(paths.accountDirectory(other.name) + "/prompt")
        }
    }

    func outboxWillChange() {
        // Without the lock the file is still removed: a change may never
        // leave a file that could be stale.
        _ = lock(wait: true)
        unlink(path)
    }

    func outboxDidCommit(_ counts: (pending: Int, conflicts: Int, rejected: Int)?, behind: Int) {
        if let counts, holdsLock {
            write(segment(OutboxSummary(counts, behind: behind)))
        }
        unlock()
    }

    func outboxDidRollBack() { unlock() }

    /// Replaces the file at once (a new file renamed over it), 0600. Any
    /// failure leaves no file.
    private func write(_ segment: PromptSegment) {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let bytes = Array(segment.fileContents.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        if written != bytes.count || rename(temporary, path) != 0 { unlink(temporary) }
    }

    private func lock(wait: Bool) -> Bool {
        if lockDescriptor < 0 {
            lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if lockDescriptor < 0 { return false }
        }
        while flock(lockDescriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            if errno != EINTR { return false }
        }
        holdsLock = true
        return true
    }

    private func unlock() {
        if holdsLock { flock(lockDescriptor, LOCK_UN) }
        holdsLock = false
    }
}
