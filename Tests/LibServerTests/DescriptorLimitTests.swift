import Foundation
import LibJSON
import Testing
import TestSupport

/// Every connection is a file descriptor (issue 47: under systemd's soft
/// limit of 1024, equal to --max-connections, lib-server ran out of
/// descriptors before it made room, and stopped accepting). lib-server
/// raises its soft limit to the hard one, refuses to start when
/// --max-connections cannot fit, and, out of descriptors all the same, cuts
/// off the slowest client instead of pausing.
@Suite struct DescriptorLimitTests {
    @Test func aHardLimitTooLowForMaxConnectionsStopsTheServerBeforeItListens() throws {
        let directory = try TemporaryDirectory("lib-server-nofile")
        let refused = try CommandRunner.run("/usr/bin/prlimit", ["--nofile=256:256", BuiltProducts.path("lib-server"),
                                                                 "--db", directory.file("server.sqlite"), "--listen", "127.0.0.1:0"])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr == "lib-server: --max-connections 1024 needs about 1126 file descriptors; the limit is 256: raise LimitNOFILE or lower --max-connections\n")
        let fewer = try CommandRunner.run("/usr/bin/prlimit", ["--nofile=256:256", BuiltProducts.path("lib-server"),
                                                               "--db", directory.file("server.sqlite"), "--listen", "127.0.0.1:0",
                                                               "--max-connections", "2000"])
        #expect(fewer.stderr == "lib-server: --max-connections 2000 needs about 2200 file descriptors; the limit is 256: raise LimitNOFILE or lower --max-connections\n")
    }

    @Test func theSoftLimitIsRaisedToTheHardOneAtStart() throws {
        let directory = try TemporaryDirectory("lib-server-nofile")
        let server = try ServerProcess(database: try TestDatabase.fresh(in: directory), launcher: ["/usr/bin/prlimit", "--nofile=512:4096"])
        #expect(try Self.openFilesLimit(of: server.process.processIdentifier) == "4096 4096")
        let small = try ServerProcess(database: try TestDatabase.fresh(in: directory, name: "small.sqlite"),
                                      extraArguments: ["--max-connections", "150"], launcher: ["/usr/bin/prlimit", "--nofile=250:250"])
        #expect(try Self.openFilesLimit(of: small.process.processIdentifier) == "250 250", "150 + 100 fit in 250")
    }

    /// The limit lowered under a running server, below its connections (as
    /// a server whose database or neighbours took descriptors would be),
    /// then 300 clients from 10 addresses that each ask once and then hold
    /// their kept-alive connection idle (30 s before the idle timeout would
    /// free it). Those past the limit wait in the listen backlog, and an
    /// ordinary client behind them too: a server that only paused accepting
    /// would leave it there past its 20 s. It is answered every time: the
    /// longest-idle connection is cut off for each one accepted. The
    /// server's processor time is printed for the log.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TSAN_OPTIONS"] == nil,
                   "a server under ThreadSanitizer (make sanitize) refuses connections soon after its limit drops to 100: the sanitizer's runtime needs descriptors of its own"))
    func outOfDescriptorsTheServerCutsOffIdleClientsAndStillAnswers() throws {
        let demo = try DemoServer()
        let alice = try demo.signIn("alice")
        let pid = demo.server.process.processIdentifier
        let lowered = try CommandRunner.run("/usr/bin/prlimit", ["--pid", String(pid), "--nofile=100:100"])
        try #require(lowered.status == 0, "\(lowered)")
        let ticksBefore = try Self.processorTicks(of: pid)

        var crowd: [Int32] = []
        defer { crowd.forEach { close($0) } }
        for index in 0..<300 {
            guard let fd = try HostileClientTests.connect(from: "127.0.4.\(index % 10 + 1)", to: demo.server.port) else { continue }
            try WaitingCrowdTests.send("GET /v2/capabilities HTTP/1.1\r\nHost: x\r\n\r\n", on: fd)
            crowd.append(fd)
        }
        #expect(crowd.count == 300)

        var statuses: [Int] = []
        for _ in 0..<10 {
            let reader = SignedInClient(client: try demo.client(timeout: 20), token: alice.token, userID: alice.userID)
            statuses.append((try? reader.get("/v1/books/b-7").status) ?? -1)
        }
        let ticks = try Self.processorTicks(of: pid) - ticksBefore
        let answered = crowd.filter { fd in
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&ready, 1, 0) > 0
        }.count
        #expect(statuses == Array(repeating: 200, count: 10), "\(statuses)")
        print("out of descriptors (100) under 300 idle kept-alive clients: \(statuses.filter { $0 == 200 }.count)/10 ordinary reads answered, \(answered) of the crowd answered or cut off; lib-server used \(ticks) clock ticks of processor time meanwhile")
    }

    /// The soft and hard `Max open files` of /proc/PID/limits.
    static func openFilesLimit(of pid: Int32) throws -> String {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
        return line.split(separator: " ").dropFirst(3).prefix(2).joined(separator: " ")
    }

    /// User and system time from /proc/PID/stat, in clock ticks.
    static func processorTicks(of pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th of the line.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}
