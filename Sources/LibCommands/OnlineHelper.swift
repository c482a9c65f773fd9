#if canImport(Glibc)
import Glibc
#endif
import LibCLI
import LibBase

/// `lib-online`, the program that runs the commands needing the network or
/// the keyring. `lib` itself is a static executable (it starts as fast as a
/// C program that links nothing), and libcurl, libsecret and GLib must not
/// be loaded into a static process; so, as git starts `git-remote-http`
/// only for a fetch or a push, `lib` replaces itself with this helper
/// (`execv`, the same arguments, environment and open files, the same
/// process id) when a command needs them, before the command has done
/// anything. The helper reads the keyring itself: no token ever crosses a
/// command line, the environment or a pipe.
public enum OnlineHelper {
    public static let name = "lib-online"

    /// Where the helper may be, next to the running `lib` first (a build
    /// directory), then in `libexec` beside its `bin` (`make install`).
    public static func candidates(besideExecutable executable: String) -> [String] {
        let directory = executable.lastIndex(of: "/").map { String(executable[..<$0]) } ?? "."
        let prefix = directory.lastIndex(of: "/").map { String(directory[..<$0]) } ?? "."
        return [directory + "/" + name, prefix + "/libexec/lib/" + name]
    }

    /// Replaces this process with the helper, running `arguments` (the
    /// whole command line, program name first). Returns only by throwing:
    /// when no helper is installed, or it cannot be started.
    public static func replaceProcess(arguments: [String], command: String) throws(CommandFailure) -> Never {
        let places = candidates(besideExecutable: runningExecutable())
        guard let helper = places.first(where: { access($0, X_OK) == 0 }) else {
            throw CommandFailure("""
                `lib \(command)` needs \(name), the program that carries lib's network and keyring code, \
                and it is not installed (looked for \(places.joined(separator: " and "))). Reinstall lib (`make install`).
                """)
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv(helper, &argv)
        let reason = String(cString: strerror(errno))
        throw CommandFailure("couldn't start \(helper) for `lib \(command)`: \(reason)")
    }

    /// The running executable's path (`/proc/self/exe`), or `lib` when the
    /// kernel won't say.
    static func runningExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "lib" }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
