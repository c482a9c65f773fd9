#if canImport(Glibc)
import Glibc
#endif

/// Small socket helpers.
enum SocketIO {
    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
