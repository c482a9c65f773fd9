#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// lib-server's open-file limit (RLIMIT_NOFILE): every connection is a
/// descriptor, and a server out of descriptors before it is out of
/// connections stops accepting instead of making room (issue 47: systemd's
/// soft limit of 1024 equal to --max-connections). At start the soft limit
/// is raised to the hard one; a hard limit too low for --max-connections
/// and the descriptors around them stops the server before it listens.
enum DescriptorLimit {
    /// Descriptors beyond the connections: the database's files or
    /// connections, each loop's epoll and eventfd, the connections told 503
    /// over the limit (32 a loop), standard streams.
    static func needed(forConnections connections: Int) -> Int {
        connections + max(100, connections / 10)
    }

    struct TooLow: Error, CustomStringConvertible {
        let maxConnections: Int
        let needed: Int
        let limit: Int

        var description: String {
            "--max-connections \(maxConnections) needs about \(needed) file descriptors; the limit is \(limit): raise LimitNOFILE or lower --max-connections"
        }
    }

    /// Raises the soft limit to the hard one and returns it; throws when it
    /// cannot hold `maxConnections`.
    @discardableResult
    static func raise(toServe maxConnections: Int) throws -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return Int.max }
        // An unlimited hard limit (RLIM_INFINITY, all ones) still stops at the kernel's nr_open.
        let ceiling = limits.rlim_max == rlim_t.max ? kernelCeiling() : limits.rlim_max
        if limits.rlim_cur < ceiling {
            var raised = limits
            raised.rlim_cur = ceiling
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        let limit = Int(clamping: limits.rlim_cur)
        let needed = needed(forConnections: maxConnections)
        guard needed <= limit else { throw TooLow(maxConnections: maxConnections, needed: needed, limit: limit) }
        return limit
    }

    private static func kernelCeiling() -> rlim_t {
        let text = (try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8)) ?? ""
        return rlim_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1_048_576
    }
}
