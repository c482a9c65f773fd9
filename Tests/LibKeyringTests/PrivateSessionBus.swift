import Foundation
import TestSupport

/// A D-Bus session bus of one test's own, listening on `DIR/bus` in a fresh
/// directory that is also its sessions' XDG_RUNTIME_DIR and (under `home`)
/// HOME, optionally with a gnome-keyring on it. `stop()` kills everything it
/// started, by pid.
final class PrivateSessionBus: @unchecked Sendable {
    // @unchecked: `keyringPIDs` is only touched by the one test that owns the bus.

    /// What answers for org.freedesktop.secrets on the bus.
    enum SecretService {
        /// Nothing, and a bus with no service directories, so D-Bus
        /// activation cannot start /usr/share/dbus-1/services' keyring either.
        case none
        /// A .service file whose program exits at once: activation fails.
        case failingActivation
        /// gnome-keyring with a "login" keyring created and unlocked with
        /// `password`, on a bus with the standard session configuration
        /// (so its unlock prompter is looked for, as on a real machine).
        case unlockedKeyring(password: String)
        /// gnome-keyring started without a password: it has no keyring at all.
        case keyringWithoutCollections
        /// Like `unlockedKeyring`, but the bus "starts" gnome-keyring's unlock
        /// prompter by running `sleep 4`, which never claims the name: an
        /// unlock prompt that nobody answers.
        case keyringWithSilentPrompter(password: String)
    }

    let directory: TemporaryDirectory
    let address: String
    private let bus: SpawnedProcess
    private var keyringPIDs: [pid_t] = []

    init(_ service: SecretService) throws {
        directory = try TemporaryDirectory("lib-keyring")
        chmod(directory.path, 0o700)
        try FileManager.default.createDirectory(atPath: directory.file("home"), withIntermediateDirectories: true)
        let address = "unix:path=\(directory.file("bus"))"
        self.address = address

        let arguments: [String]
        switch service {
        case .unlockedKeyring:
            arguments = ["--session", "--address=\(address)"]
        case .keyringWithSilentPrompter:
            let services = directory.file("services")
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            try "[D-BUS Service]\nName=org.gnome.keyring.SystemPrompter\nExec=/bin/sleep 4\n"
                .write(toFile: services + "/org.gnome.keyring.SystemPrompter.service", atomically: true, encoding: .utf8)
            arguments = ["--config-file=\(try Self.writeConfiguration(in: directory, listen: address, serviceDirectory: services))"]
        case .none, .keyringWithoutCollections:
            arguments = ["--config-file=\(try Self.writeConfiguration(in: directory, listen: address, serviceDirectory: nil))"]
        case .failingActivation:
            let services = directory.file("services")
            try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
            try "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/bin/false\n"
                .write(toFile: services + "/org.freedesktop.secrets.service", atomically: true, encoding: .utf8)
            arguments = ["--config-file=\(try Self.writeConfiguration(in: directory, listen: address, serviceDirectory: services))"]
        }
        var printed: [Int32] = [0, 0]
        guard closeOnExecChannel(&printed) else { throw SessionError("socketpair: \(errno)") }
        let spawned: SpawnedProcess
        do {
            spawned = try SpawnedProcess(
                "/usr/bin/dbus-daemon", arguments + ["--nofork", "--nopidfile", "--print-address=1"],
                environment: Self.sessionEnvironment(directory: directory, address: address), output: printed[1])
        } catch {
            close(printed[0]); close(printed[1])
            throw error
        }
        bus = spawned
        close(printed[1])
        // The address is printed once the daemon listens.
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while !line.contains(UInt8(ascii: "\n")), read(printed[0], &byte, 1) == 1 { line.append(byte) }
        close(printed[0])
        guard line.contains(UInt8(ascii: "\n")) else {
            stop()
            throw SessionError("dbus-daemon did not start")
        }

        switch service {
        case .unlockedKeyring(let password), .keyringWithSilentPrompter(let password):
            try startKeyring(arguments: ["--unlock", "--components=secrets"], stdin: password)
        case .keyringWithoutCollections:
            try startKeyring(arguments: ["--start", "--components=secrets"], stdin: nil)
        case .none, .failingActivation:
            break
        }
    }

    deinit { stop() }

    /// The environment of a process in a session on this bus, without a
    /// display. `busVariable: false` leaves DBUS_SESSION_BUS_ADDRESS out,
    /// as cron does.
    func environment(busVariable: Bool = true, adding extra: [String: String] = [:]) -> [String: String] {
        var environment = Self.sessionEnvironment(directory: directory, address: address)
        if !busVariable { environment["DBUS_SESSION_BUS_ADDRESS"] = nil }
        environment.merge(extra) { $1 }
        return environment
    }

    private static func sessionEnvironment(directory: TemporaryDirectory, address: String) -> [String: String] {
        [
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": directory.file("home"),
            "XDG_RUNTIME_DIR": directory.path,
            "LANG": "C.UTF-8",
            "DBUS_SESSION_BUS_ADDRESS": address,
        ]
    }

    /// The pid of the process that owns org.freedesktop.secrets.
    func keyringPID() throws -> pid_t {
        let reply = try dbusSend(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            method: "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:org.freedesktop.secrets")
        guard let word = reply.split(whereSeparator: \.isWhitespace).last, let pid = pid_t(word) else {
            throw SessionError("no pid in \(reply)")
        }
        return pid
    }

    /// Locks the "login" keyring, as the screen locker or `secret-tool lock` would.
    func lockLoginKeyring() throws {
        _ = try dbusSend(
            destination: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
            method: "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login")
    }

    /// Unlocks it the way KEYRING.md tells people to: a new daemon that
    /// replaces the running one, with the password on stdin.
    func unlockLoginKeyring(password: String) throws {
        try startKeyring(arguments: ["--replace", "--unlock", "--components=secrets"], stdin: password)
    }

    func stop() {
        for pid in keyringPIDs { kill(pid, SIGKILL) }
        keyringPIDs.removeAll()
        bus.kill()
    }

    // MARK: Internals

    /// Runs gnome-keyring-daemon, which forks the daemon and returns, then
    /// waits until the daemon owns org.freedesktop.secrets.
    private func startKeyring(arguments: [String], stdin: String?) throws {
        let previous = try? keyringPID()
        // The password goes through a pipe; its output to /dev/null, since
        // the daemon keeps the descriptors it inherits.
        var input: [Int32] = [0, 0]
        guard closeOnExecChannel(&input) else { throw SessionError("socketpair: \(errno)") }
        let starter: SpawnedProcess
        do {
            starter = try SpawnedProcess(
                "/usr/bin/gnome-keyring-daemon", arguments, environment: environment(), input: input[0])
        } catch {
            close(input[0]); close(input[1])
            throw error
        }
        close(input[0])
        if let stdin { _ = Array(stdin.utf8).withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) } }
        close(input[1])
        if starter.wait(timeout: 10) == nil {
            starter.kill()
            throw SessionError("gnome-keyring-daemon \(arguments.joined(separator: " ")) did not return")
        }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let pid = try? keyringPID(), pid != previous {
                keyringPIDs.append(pid)
                return
            }
            usleep(20_000)
        }
        throw SessionError("gnome-keyring-daemon \(arguments.joined(separator: " ")) did not appear on the bus")
    }

    private func dbusSend(destination: String, path: String, method: String, _ arguments: String...) throws -> String {
        let result = try CommandRunner.run(
            "/usr/bin/dbus-send",
            ["--session", "--print-reply", "--dest=\(destination)", path, method] + arguments,
            environment: environment(), timeout: 10)
        guard result.status == 0 else { throw SessionError(result.description) }
        return result.stdout
    }

    /// A session bus configuration with at most one service directory of our own.
    private static func writeConfiguration(
        in directory: TemporaryDirectory, listen address: String, serviceDirectory: String?
    ) throws -> String {
        let file = directory.file("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              \(serviceDirectory.map { "<servicedir>\($0)</servicedir>" } ?? "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// A connected pair of sockets, used like a pipe, created close-on-exec in
/// one step (Glibc's module does not export pipe2), so that a child spawned
/// by a test running in parallel cannot inherit either end.
func closeOnExecChannel(_ ends: inout [Int32]) -> Bool {
    socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0
}

struct SessionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
