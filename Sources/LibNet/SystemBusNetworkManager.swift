import CNetworkManager
import Glibc

/// NetworkManager on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the
/// standard socket), read with GDBus. GIO is loaded on the first call, so a
/// process that never asks (every one whose requests succeed, `lib status`
/// always) never loads it. Absent NetworkManager or bus: nil, and nothing
/// else changes.
public struct SystemBusNetworkManager: NetworkManagerSource {
    /// The longest a read may take: NetworkManager answers property reads
    /// from memory, and a bus that does not answer must not hold up an
    /// explanation for long.
    public static let timeoutMilliseconds: UInt32 = 1000

    public init() {}

    public func currentStatus() -> NetworkManagerStatus? {
        var properties = cnm_properties()
        guard cnm_read(&properties, Self.timeoutMilliseconds) == Int32(CNM_OK.rawValue) else { return nil }
        return NetworkManagerStatus(
            nmState: properties.state, nmConnectivity: properties.connectivity, nmMetered: properties.metered)
    }

    /// Whether this process has loaded GIO for NetworkManager (never loads it).
    public static var isLoaded: Bool { cnm_is_loaded() != 0 }
}

/// NetworkManager's status as it changes, for a process that waits on it in
/// poll(): a descriptor that turns readable on each change signal, and the
/// latest status, each reading tagged with a generation (the count of
/// change signals before it was taken) so that a reading older than one
/// already accepted is dropped, as seed 004's path hint does.
public final class NetworkManagerMonitor {
    /// Readable when NetworkManager signalled a change; -1 when there is no
    /// bus (then nothing will ever change, and the status stays nil).
    public let descriptor: Int32
    public private(set) var status: NetworkManagerStatus?
    public private(set) var generation: UInt64 = 0

    /// Subscribes to NetworkManager's signals (loading GIO), then reads its
    /// status: subscribing first means no change between the two is missed.
    public init() {
        descriptor = cnm_changes_descriptor(SystemBusNetworkManager.timeoutMilliseconds)
        refresh()
    }

    /// A monitor that has read nothing yet (tests of `accept`).
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Reads the status again after a change signal (or whenever asked):
    /// empties the descriptor first, then reads until no signal arrived
    /// during the read. Returns whether the accepted status changed.
    @discardableResult
    public func refresh() -> Bool {
        if descriptor >= 0 {
            var buffer = [UInt8](repeating: 0, count: 64)
            while read(descriptor, &buffer, buffer.count) > 0 {}
        }
        let before = status
        for _ in 0..<3 {
            let taken = cnm_change_count()
            let reading = SystemBusNetworkManager().currentStatus()
            accept(reading, generation: taken)
            if cnm_change_count() == taken { break }
        }
        return status != before
    }

    /// Accepts a reading unless one taken after a later change was accepted already.
    func accept(_ reading: NetworkManagerStatus?, generation taken: UInt64) {
        guard taken >= generation else { return }
        generation = taken
        status = reading
    }
}
