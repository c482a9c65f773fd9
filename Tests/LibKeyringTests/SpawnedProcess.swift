import Foundation

/// A child process started with posix_spawn and reaped with waitpid on its
/// own pid. Used for the daemons of `PrivateSessionBus` instead of
/// Foundation's Process, whose exit detection missed gnome-keyring-daemon's
/// exit (it stayed a zombie and waitUntilExit never returned), and whose
/// children inherit the test threads' signal mask (SIGTERM blocked): here
/// the child starts with an empty mask.
final class SpawnedProcess: @unchecked Sendable {
    // @unchecked: `pid` and `exited` are touched only by the owning test.
    let pid: pid_t
    private var exited = false

    /// Starts `path` with `arguments` and `environment`; `input` and `output`
    /// become its stdin and stdout (nil: /dev/null). stderr is /dev/null.
    /// Descriptors the caller opened must be close-on-exec
    /// (`closeOnExecChannel`): an inherited write end of a stdin pipe would keep the
    /// child waiting for end-of-file forever.
    init(_ path: String, _ arguments: [String], environment: [String: String],
         input: Int32? = nil, output: Int32? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, replacement) in [(Int32(0), input), (Int32(1), output)] {
            if let replacement {
                posix_spawn_file_actions_adddup2(&actions, replacement, descriptor)
            } else {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_RDWR, 0)
            }
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_RDWR, 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let failure = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard failure == 0 else { throw SessionError("posix_spawn \(path): \(String(cString: strerror(failure)))") }
        pid = child
    }

    /// Waits for the process to exit, at most `timeout` seconds; its exit
    /// status, or nil when it is still running.
    @discardableResult
    func wait(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                exited = true
                return status
            }
            if reaped < 0 && errno != EINTR { return nil }
            if Date() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Kills the process (if it has not exited) and reaps it.
    func kill() {
        guard !exited else { return }
        Glibc.kill(pid, SIGKILL)
        wait()
    }
}
