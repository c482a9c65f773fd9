#if canImport(Glibc)
import Glibc
#endif

/// Why an account file could not be read or written, naming the file.
public enum AccountFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case io(path: String, operation: String, reason: String)
    case malformed(path: String, line: String)

    public var description: String {
        switch self {
        case .io(let path, let operation, let reason): return "Cannot \(operation) \(path): \(reason)"
        case .malformed(let path, let line): return "\(path) is damaged (line '\(line)'): fix or remove that line"
        }
    }
}

/// Small files and directories only their owner can read (0600 / 0700,
/// whatever the umask), written atomically (temporary file, fsync, rename).
public enum PrivateFile {
    static func failure(_ path: String, _ operation: String) -> AccountFileError {
        .io(path: path, operation: operation, reason: String(cString: strerror(errno)))
    }

    /// The file's text, or nil when it does not exist.
    public static func read(_ path: String) throws(AccountFileError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure(path, "read")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; throw failure(path, "read") }
            if n == 0 { break }
            bytes += buffer[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func writeAtomically(_ path: String, _ text: String) throws(AccountFileError) {
        let temporary = path + ".tmp-\(getpid())"
        // A new file, never one (or a link) found there: rename then replaces
        // the name, whatever it was, and follows no link.
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(path, "write") }
        fchmod(fd, 0o600)
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let error = failure(path, "write")
                close(fd); unlink(temporary)
                throw error
            }
            written += n
        }
        if fsync(fd) != 0 {
            let error = failure(path, "write")
            close(fd); unlink(temporary)
            throw error
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let error = failure(path, "write")
            unlink(temporary)
            throw error
        }
    }

    /// Makes the directory and any missing parents, each 0700. Below
    /// `root` (lib's own directory), no component may be a symbolic link:
    /// lib's files never end up somewhere a link planted there points to.
    public static func makeDirectory(_ path: String, noLinksBelow root: String? = nil) throws(AccountFileError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/" as Character) {
            current += "/"
            current.append(contentsOf: component)
            if mkdir(current, 0o700) == 0 {
                chmod(current, 0o700)
            } else if errno != EEXIST {
                throw failure(current, "create directory")
            } else if let root, current.count > root.count, current.hasPrefix(root) {
                var info = stat()
                if lstat(current, &info) != 0 { throw failure(current, "create directory") }
                if info.st_mode & S_IFMT != S_IFDIR {
                    throw AccountFileError.io(path: current, operation: "use", reason: "it is not a directory (a symbolic link?)")
                }
            }
        }
        chmod(path, 0o700)
    }

    /// Runs `body` holding an exclusive lock on the file at `path` (made
    /// 0600 when missing), so that commands editing the same files take turns.
    public static func holdingLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(path, "open") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure(path, "lock") }
        }
        return try body()
    }
}
