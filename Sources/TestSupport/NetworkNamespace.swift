import Foundation
import Glibc
import Testing

/// A network namespace made for one test with `ip netns add`, removed (with
/// its veth links and resolver file) when released, even if the test failed.
/// Only addresses from the documentation ranges are used, and only inside
/// namespaces made here: nothing leaves them.
public final class NetworkNamespace: @unchecked Sendable {
    public let name: String
    private var peers: [String] = []
    private var interfaceCount = 0
    private static let counter = Mutex()

    /// Whether namespaces can be made here (root with iproute2).
    public static var isSupported: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: ip)
    }
    public static let skipReason: Comment = "needs root and iproute2 (ip netns) to make network namespaces"
    public static let ip = "/usr/sbin/ip"

    /// A new namespace with `lo` up (a new namespace's `lo` starts down).
    public init() throws {
        Self.removeLeftovers
        name = "libnet-\(getpid())-\(Self.counter.next())"
        try Self.ipCommand(["netns", "add", name])
        try ip(["link", "set", "lo", "up"])
    }

    deinit {
        for peer in peers { _ = try? Self.run(Self.ip, ["netns", "del", peer]) }
        _ = try? Self.run(Self.ip, ["netns", "del", name])
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }

    /// Removes, once per test run, namespaces that a killed earlier run left
    /// behind: named `libnet-PID-...` for a PID that is no longer running.
    private static let removeLeftovers: Void = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/run/netns")) ?? []
        for name in names where name.hasPrefix("libnet-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, let pid = Int32(parts[1]), pid != getpid(), kill(pid, 0) != 0 else { continue }
            _ = try? run(ip, ["netns", "del", name])
            try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
        }
    }()

    /// Runs `ip -n NAME ARGS`, failing the test's setup on error.
    public func ip(_ arguments: [String]) throws {
        try Self.ipCommand(["-n", name] + arguments)
    }

    /// Links this namespace to a new peer namespace with a veth pair, gives
    /// each end an address ("198.51.100.2/24" here, "198.51.100.1/24" there)
    /// and brings both up. Returns this side's interface name.
    @discardableResult
    public func addPeer(local: String, remote: String, remoteIPv6: String? = nil, localIPv6: String? = nil) throws -> String {
        interfaceCount += 1
        let peer = "\(name)-p\(interfaceCount)"
        try Self.ipCommand(["netns", "add", peer])
        peers.append(peer)
        let suffix = "\(getpid() % 100_000)\(Self.counter.next())"
        let here = "va\(suffix)", there = "vb\(suffix)"
        try Self.ipCommand(["link", "add", here, "netns", name, "type", "veth", "peer", "name", there, "netns", peer])
        try ip(["addr", "add", local, "dev", here])
        try Self.ipCommand(["-n", peer, "addr", "add", remote, "dev", there])
        if let localIPv6, let remoteIPv6 {
            try ip(["addr", "add", localIPv6, "dev", here, "nodad"])
            try Self.ipCommand(["-n", peer, "addr", "add", remoteIPv6, "dev", there, "nodad"])
        }
        try ip(["link", "set", here, "up"])
        try Self.ipCommand(["-n", peer, "link", "set", "lo", "up"])
        try Self.ipCommand(["-n", peer, "link", "set", there, "up"])
        return here
    }

    /// Gives `ip netns exec` in this namespace its own resolv.conf.
    public func setResolver(_ contents: String) throws {
        let directory = "/etc/netns/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try contents.write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)
    }

    /// Runs a program inside the namespace with a clean environment (no
    /// proxy variables from the test's own environment).
    public func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30)
        throws -> CommandResult
    {
        var env = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"]
        env.merge(environment) { $1 }
        return try CommandRunner.run(Self.ip, ["netns", "exec", name, executable] + arguments, environment: env, timeout: timeout)
    }

    private static func ipCommand(_ arguments: [String]) throws {
        let result = try run(ip, arguments)
        guard result.status == 0 else { throw NamespaceError.command(result.description) }
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> CommandResult {
        try CommandRunner.run(executable, arguments, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], timeout: 20)
    }

    public enum NamespaceError: Error { case command(String) }

    /// A process-wide counter for unique names.
    final class Mutex: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }
}
