#if canImport(Glibc)
import Glibc
#endif

/// The process's environment variables, read from `environ`.
enum ProcessEnvironment {
    static func current() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        var variables: [String: String] = [:]
        variables.reserveCapacity(count)
        var entry: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = environ
        while let current = entry, let pointer = current.pointee {
            // Split at the first '=' on the bytes (strchr): this runs at the
            // start of every command, and String's Character-wise search
            // cost more than all the rest of `lib --version`.
            if let equals = strchr(pointer, Int32(UInt8(ascii: "="))) {
                let nameLength = pointer.distance(to: equals)
                let name = UnsafeRawBufferPointer(start: pointer, count: nameLength)
                variables[String(decoding: name, as: UTF8.self)] = String(cString: equals + 1)
            }
            entry = current + 1
        }
        return variables
    }
}
