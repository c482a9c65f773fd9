#if canImport(Glibc)
import Glibc
#endif

/// The process's environment variables, read from `environ`.
enum ProcessEnvironment {
    static func current() -> [String: String] {
        var variables: [String: String] = [:]
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let current = entry, let pointer = current.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry = current + 1
        }
        return variables
    }
}
