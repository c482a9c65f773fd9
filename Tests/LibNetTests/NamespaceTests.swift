import Foundation
import Testing
import TestSupport

/// Offline, unreachable and slow networks made for real in network
/// namespaces, with the built `lib-net-check` run inside them.
@Suite(.enabled(if: NetworkNamespace.isSupported, NetworkNamespace.skipReason))
struct NamespaceTests {
    /// A namespace with no route at all (only `lo`, which is up).
    @Test func noRouteWithIPLiteralIsOffline() throws {
        let namespace = try NetworkNamespace()
        let result = try namespace.run(NetCheck.path, ["request", "http://192.0.2.10/", "--pending", "3"])
        #expect(result.classification == "offline", "\(result)")
        #expect(result.explanation == "You're offline (no network route to 192.0.2.10). 3 writes are saved on this device.")
        #expect(result.status == 75)
    }

    @Test func noRouteWithHostNameIsOfflineNotDNS() throws {
        let namespace = try NetworkNamespace()
        // The resolver is unreachable too, as it would be offline.
        try namespace.setResolver("nameserver 192.0.2.53\noptions timeout:1 attempts:1\n")
        let result = try namespace.run(NetCheck.path, ["request", "http://books.example.invalid/"])
        #expect(result.classification == "offline", "\(result)")
        #expect(result.explanation == "You're offline (no network route to books.example.invalid).")
        #expect(result.status == 75)
    }

    @Test func noRouteWithIPv6LiteralIsOffline() throws {
        let namespace = try NetworkNamespace()
        let result = try namespace.run(NetCheck.path, ["request", "https://[2001:db8::10]:8443/"])
        #expect(result.classification == "offline", "\(result)")
        #expect(result.explanation == "You're offline (no network route to 2001:db8::10).")
        #expect(result.status == 75)
    }

    /// A peer namespace with an address and nothing listening: the kernel
    /// answers the SYN with a reset.
    @Test func closedPortIsConnectionRefusedNotOffline() throws {
        let namespace = try NetworkNamespace()
        try namespace.addPeer(
            local: "198.51.100.2/24", remote: "198.51.100.1/24", remoteIPv6: "2001:db8:1::1/64",
            localIPv6: "2001:db8:1::2/64")
        let result = try namespace.run(NetCheck.path, ["request", "http://198.51.100.1:8080/books", "--pending", "1"])
        #expect(result.classification == "connection-refused", "\(result)")
        #expect(
            result.explanation
                == "Couldn't reach 198.51.100.1:8080: connection refused — the server may be down. 1 write is saved on this device."
        )
        #expect(result.status == 75)

        let v6 = try namespace.run(NetCheck.path, ["request", "http://[2001:db8:1::1]:8080/books"])
        #expect(v6.classification == "connection-refused", "\(v6)")
        #expect(v6.explanation == "Couldn't reach [2001:db8:1::1]:8080: connection refused — the server may be down.")
        #expect(v6.status == 75)
    }

    /// A default route to a gateway whose neighbour entry is a made-up MAC:
    /// SYNs leave and nothing ever answers.
    @Test func silentGatewayTimesOutWithinBoundNotOffline() throws {
        let namespace = try NetworkNamespace()
        let interface = try namespace.addPeer(local: "198.51.100.2/24", remote: "198.51.100.1/24")
        try namespace.ip(["route", "add", "default", "via", "198.51.100.1"])
        try namespace.ip(["neigh", "replace", "198.51.100.1", "lladdr", "02:00:00:00:00:99", "dev", interface, "nud", "permanent"])
        let start = Date()
        let result = try namespace.run(NetCheck.path, ["request", "http://192.0.2.10:8080/", "--connect-timeout", "1"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(result.classification == "timeout-connect", "\(result)")
        #expect(result.explanation == "Couldn't reach 192.0.2.10:8080: timed out after 1 s.")
        #expect(result.status == 75)
        // Never early; late only by a busy machine's delay (unbounded, the kernel's SYN retries take 127 s).
        #expect(elapsed >= 0.9 && elapsed < 20, "took \(elapsed) s for a 1 s bound")
    }

    /// A route exists, the resolver answers "port unreachable" at once: the
    /// name does not resolve, and the path says we are online.
    @Test func unknownHostWithRouteIsDNSNotOffline() throws {
        let namespace = try NetworkNamespace()
        try namespace.addPeer(local: "198.51.100.2/24", remote: "198.51.100.1/24")
        try namespace.ip(["route", "add", "default", "via", "198.51.100.1"])
        try namespace.setResolver("nameserver 198.51.100.1\noptions timeout:1 attempts:1\n")
        let result = try namespace.run(NetCheck.path, ["request", "https://books.example.invalid/v1/me", "--pending", "2"])
        #expect(result.classification == "dns", "\(result)")
        #expect(result.explanation == "Couldn't resolve books.example.invalid. 2 writes are saved on this device.")
        #expect(result.status == 75)
    }

    @Test func probeFollowsTheRoutingTable() throws {
        let namespace = try NetworkNamespace()
        #expect(try namespace.run(NetCheck.path, ["probe", "192.0.2.10"]).stdout == "unavailable\n")
        #expect(try namespace.run(NetCheck.path, ["probe", "books.example"]).stdout == "unavailable\n")
        #expect(try namespace.run(NetCheck.path, ["probe", "127.0.0.1"]).stdout == "available\n")
        try namespace.addPeer(local: "198.51.100.2/24", remote: "198.51.100.1/24")
        #expect(try namespace.run(NetCheck.path, ["probe", "198.51.100.1"]).stdout == "available\n")
        #expect(try namespace.run(NetCheck.path, ["probe", "192.0.2.10"]).stdout == "unavailable\n")
        try namespace.ip(["route", "add", "default", "via", "198.51.100.1"])
        #expect(try namespace.run(NetCheck.path, ["probe", "books.example"]).stdout == "available\n")
    }

    /// The watcher is woken by the route being added, not by a timer.
    @Test func watcherWakesWhenDefaultRouteAppears() throws {
        let namespace = try NetworkNamespace()
        try namespace.addPeer(local: "198.51.100.2/24", remote: "198.51.100.1/24")
        // Started directly (not from a task) so that a busy test pool cannot
        // delay the start and shorten the wait being measured.
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: NetworkNamespace.ip)
        watcher.arguments = ["netns", "exec", namespace.name, NetCheck.path, "wait-path", "books.example", "--deadline", "60"]
        let output = Pipe()
        watcher.standardOutput = output
        try watcher.run()
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }
        // Asleep in poll until about its deadline, not on a short timer:
        // only the route event can wake it before then.
        let pid = watcher.processIdentifier
        #expect(ProcessState.waitUntil { (ProcessState.mainThreadPollTimeout(pid) ?? 0) > 30_000 || !watcher.isRunning })
        #expect(ProcessState.mainThreadPollTimeout(pid).map { $0 > 30_000 } == true, "not asleep until its deadline")
        // Waiting a while (a condition the test sets up).
        Thread.sleep(forTimeInterval: 1.5)
        #expect(watcher.isRunning, "the watcher ended before the route was added")
        try namespace.ip(["route", "add", "default", "via", "198.51.100.1"])
        let added = Date()
        watcher.waitUntilExit()
        let afterRoute = Date().timeIntervalSince(added)
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(watcher.terminationStatus == 0, "\(stdout)")
        #expect(stdout.hasPrefix("available after "), "\(stdout)")
        let waited = Double(stdout.dropFirst("available after ".count).dropLast(2)) ?? -1
        #expect(waited >= 1.4 && waited < 60, "\(stdout)")
        #expect(afterRoute < 30, "woke \(afterRoute) s after the route was added")
    }

    @Test func watcherGivesUpAtItsDeadline() throws {
        let namespace = try NetworkNamespace()
        let start = Date()
        let result = try namespace.run(NetCheck.path, ["wait-path", "books.example", "--deadline", "1"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout.hasPrefix("gave up after 1.0"), "\(result)")
        #expect(elapsed >= 1.0 && elapsed < 20, "took \(elapsed) s")
    }

    @Test func watcherReturnsAtOnceWhenAlreadyOnline() throws {
        let namespace = try NetworkNamespace()
        try namespace.addPeer(local: "198.51.100.2/24", remote: "198.51.100.1/24")
        try namespace.ip(["route", "add", "default", "via", "198.51.100.1"])
        let result = try namespace.run(NetCheck.path, ["wait-path", "books.example", "--deadline", "5"])
        #expect(result.stdout == "available after 0.00s\n", "\(result)")
        #expect(result.status == 0)
    }

    /// The token passed as a header appears in no output, in any of the
    /// namespace failures.
    @Test func tokenNeverAppearsInNamespaceFailures() throws {
        let token = "tok-NS-4f1c2e9b7d"
        let namespace = try NetworkNamespace()
        let interface = try namespace.addPeer(local: "198.51.100.2/24", remote: "198.51.100.1/24")
        var outputs: [String] = []
        outputs.append(try namespace.run(NetCheck.path, ["request", "http://198.51.100.1:8080/", "--header", "Authorization: Bearer \(token)", "--debug"]).description)
        outputs.append(try namespace.run(NetCheck.path, ["request", "http://192.0.2.10/", "--header", "Authorization: Bearer \(token)", "--debug"]).description)
        try namespace.ip(["route", "add", "default", "via", "198.51.100.1"])
        try namespace.ip(["neigh", "replace", "198.51.100.1", "lladdr", "02:00:00:00:00:99", "dev", interface, "nud", "permanent"])
        outputs.append(try namespace.run(NetCheck.path, ["request", "http://192.0.2.10/", "--connect-timeout", "0.3", "--header", "Authorization: Bearer \(token)", "--debug"]).description)
        for output in outputs {
            // The command line itself is part of the description; drop it.
            let printed = output.split(separator: "\n").dropFirst().joined(separator: "\n")
            #expect(!printed.contains(token), "\(output)")
            #expect(!printed.contains("tok-NS"), "\(output)")
        }
    }
}
