#if canImport(Glibc)
import Glibc
#endif

/// Finds the user's session bus when the environment does not name it, as
/// under cron: `$XDG_RUNTIME_DIR/bus`, else `/run/user/$UID/bus` — the socket
/// systemd's user manager (dbus-user-session) creates while the user has a
/// session or lingering is enabled.
enum SessionBusLocator {
    static let variable = "DBUS_SESSION_BUS_ADDRESS"

    /// The address to use, or nil when the environment already names a bus
    /// or no bus socket exists.
    static func fallbackAddress(
        environment: [String: String],
        userID: UInt32,
        isSocket: (String) -> Bool
    ) -> String? {
        if let address = environment[variable], !address.isEmpty { return nil }
        var candidates: [String] = []
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            candidates.append(runtime + "/bus")
        }
        candidates.append("/run/user/\(userID)/bus")
        guard let socket = candidates.first(where: isSocket) else { return nil }
        return "unix:path=" + escapedAddressValue(socket)
    }

    /// Exports the fallback address into this process's environment, once.
    ///
    /// Safe because of when it runs: GLib reads DBUS_SESSION_BUS_ADDRESS when
    /// it first connects to the session bus, and GLib is only loaded (by
    /// CSecret, with dlopen) on the first keyring call, after this. Nothing
    /// else in lib reads the variable. setenv is not safe against a
    /// concurrent getenv on another thread, so it happens at most once, as
    /// the first thing the first keyring call does; a command makes that
    /// call before it starts threads of its own.
    static func exportFallbackAddressIfNeeded() {
        _ = exported
    }

    private static let exported: Bool = {
        guard let address = fallbackAddress(
            environment: currentEnvironment(), userID: getuid(), isSocket: isUnixSocket)
        else { return false }
        return setenv(variable, address, 1) == 0
    }()

    /// D-Bus address values escape every byte outside `[-0-9A-Za-z_/.\*]` as `%XX`.
    static func escapedAddressValue(_ value: String) -> String {
        var escaped = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789abcdef".unicodeScalars)
                escaped += "%"
                escaped.unicodeScalars.append(hex[Int(byte >> 4)])
                escaped.unicodeScalars.append(hex[Int(byte & 0x0f)])
            }
        }
        return escaped
    }

    static func isUnixSocket(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    /// The two variables the lookup needs, read from the process environment.
    static func currentEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in [variable, "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }
}
