#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to a file descriptor, for messages on stderr.
struct FileDescriptorOutput {
    static let standardError = FileDescriptorOutput(descriptor: 2)

    let descriptor: Int32

    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
