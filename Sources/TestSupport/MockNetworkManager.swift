import Foundation
import Testing

/// python3-dbusmock's NetworkManager template on a private system bus: a
/// dbus-daemon of its own on a unix:path socket (reachable from network
/// namespaces too), for a program run with `DBUS_SYSTEM_BUS_ADDRESS =
/// address`. Its properties change while the program runs, each change
/// signalled as NetworkManager signals it (PropertiesChanged). Both
/// processes are killed when released.
public final class MockNetworkManager: @unchecked Sendable {
    public let address: String
    private let directory: TemporaryDirectory
    private let bus: Process
    private let mock: Process

    public static let python = "/usr/bin/python3"
    public static let dbusSend = "/usr/bin/dbus-send"

    /// Whether dbus-daemon, dbus-send and python3-dbusmock are installed.
    public static var isSupported: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon")
            && FileManager.default.isExecutableFile(atPath: dbusSend)
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock/templates/networkmanager.py")
    }
    public static let skipReason: Comment = "needs dbus-daemon, dbus-send and python3-dbusmock"

    /// NMConnectivityState and NMState values (nm-dbus-types).
    public enum Connectivity: UInt32 { case none = 1, portal = 2, limited = 3, full = 4 }
    public enum State: UInt32 { case disconnected = 20, connecting = 40, connectedGlobal = 70 }

    /// Starts the bus and the mock (connected, full connectivity, not
    /// metered) and waits until NetworkManager's name is on the bus.
    public init() throws {
        directory = try TemporaryDirectory("lib-nm")
        address = "unix:path=" + directory.file("system_bus_socket")
        bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--session", "--nofork", "--nopidfile", "--address=\(address)"]
        bus.standardOutput = FileHandle.nullDevice
        bus.standardError = FileHandle.nullDevice
        try bus.run()
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: directory.file("system_bus_socket")) { usleep(10_000) }

        mock = Process()
        mock.executableURL = URL(fileURLWithPath: Self.python)
        mock.arguments = ["-m", "dbusmock", "--template", "networkmanager", "-l", directory.file("calls.log")]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        mock.environment = environment
        mock.standardOutput = FileHandle.nullDevice
        mock.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try mock.run()
        var ready = false
        for _ in 0..<300 {
            if (try? mockCall("AddProperty", ["string:org.freedesktop.NetworkManager", "string:Metered", "variant:uint32:4"])) != nil {
                ready = true
                break
            }
            usleep(20_000)
        }
        guard ready else { throw MockError.notReady }
    }

    deinit {
        for process in [mock, bus] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The D-Bus calls the mock received so far, one a line ("... GetAll /org/freedesktop/NetworkManager ...").
    public var calls: String { (try? String(contentsOfFile: directory.file("calls.log"), encoding: .utf8)) ?? "" }

    /// How many times a program read NetworkManager's properties.
    public var propertyReads: Int { calls.split(separator: "\n").filter { $0.contains(" GetAll ") || $0.contains(" Get ") }.count }

    public func setConnectivity(_ value: Connectivity) throws {
        try mockCall("SetConnectivity", ["uint32:\(value.rawValue)"])
    }

    public func setState(_ value: State) throws {
        try mockCall("SetGlobalConnectionState", ["uint32:\(value.rawValue)"])
    }

    /// NMMetered: yes (1) or guess-no (4).
    public func setMetered(_ metered: Bool) throws {
        try mockCall("SetProperty", ["objpath:/org/freedesktop/NetworkManager", "string:org.freedesktop.NetworkManager",
                                     "string:Metered", "variant:uint32:\(metered ? 1 : 4)"])
    }

    /// NetworkManager leaves the bus (as when it is stopped).
    public func stopNetworkManager() {
        if mock.isRunning {
            kill(mock.processIdentifier, SIGKILL)
            mock.waitUntilExit()
        }
    }

    /// Calls one of dbusmock's org.freedesktop.DBus.Mock methods and waits for its reply.
    private func mockCall(_ method: String, _ arguments: [String]) throws {
        let result = try CommandRunner.run(
            Self.dbusSend,
            ["--system", "--print-reply", "--reply-timeout=5000", "--dest=org.freedesktop.NetworkManager",
             "/org/freedesktop/NetworkManager", "org.freedesktop.DBus.Mock.\(method)"] + arguments,
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": address], timeout: 10)
        guard result.status == 0 else { throw MockError.call(result.description) }
    }

    public enum MockError: Error {
        case notReady
        case call(String)
    }
}
