import Foundation
@testable import LibNet
import Testing
import TestSupport

/// NetworkManager's State, Connectivity and Metered read over a private
/// system bus from python3-dbusmock's NetworkManager template, through
/// `lib-net-check networkmanager` (the same calls lib makes after a failure).
@Suite(.enabled(if: MockNetworkManager.isSupported, MockNetworkManager.skipReason))
struct NetworkManagerTests {
    @Test func readsStateConnectivityAndMetered() throws {
        let nm = try MockNetworkManager()
        let bus = ["DBUS_SYSTEM_BUS_ADDRESS": nm.address]
        #expect(try NetCheck.run(["networkmanager"], environment: bus).stdout == "connected full unmetered\n")
        try nm.setConnectivity(.portal)
        try nm.setMetered(true)
        #expect(try NetCheck.run(["networkmanager"], environment: bus).stdout == "connected captivePortal metered\n")
        try nm.setConnectivity(.limited)
        try nm.setState(.connecting)
        #expect(try NetCheck.run(["networkmanager"], environment: bus).stdout == "connecting limited metered\n")
    }

    @Test func absentNetworkManagerOrBusIsAbsent() throws {
        let nm = try MockNetworkManager()
        nm.stopNetworkManager()
        let gone = try NetCheck.run(["networkmanager"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": nm.address])
        #expect(gone.stdout == "absent\n" && gone.status == 0, "\(gone)")
        let noBus = try NetCheck.run(["networkmanager"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(noBus.stdout == "absent\n" && noBus.status == 0, "\(noBus)")
    }

    /// Changes made while the program runs arrive as signals: each one is
    /// seen (no polling: the program sleeps in poll() on GDBus's descriptor).
    @Test func changesAreSignalledWhileItRuns() throws {
        let nm = try MockNetworkManager()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NetCheck.path)
        process.arguments = ["networkmanager", "--changes", "3", "--deadline", "20"]
        process.environment = ["DBUS_SYSTEM_BUS_ADDRESS": nm.address]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading
        #expect(String(decoding: reader.availableData, as: UTF8.self) == "connected full unmetered\n")
        try nm.setConnectivity(.portal)
        usleep(300_000)
        try nm.setMetered(true)
        usleep(300_000)
        try nm.setConnectivity(.full)
        process.waitUntilExit()
        let lines = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(lines)")
        #expect(lines == "connected captivePortal unmetered\nconnected captivePortal metered\nconnected full metered\n")
    }
}

/// Seed 004's rule: a reading tagged with an older generation than the one
/// accepted is stale and dropped; an absent NetworkManager is a reading too.
@Test func networkManagerReadingsOlderThanTheAcceptedOneAreDropped() {
    let monitor = NetworkManagerMonitor(descriptor: -1)
    let portal = NetworkManagerStatus(nmState: 70, nmConnectivity: 2, nmMetered: 4)
    let full = NetworkManagerStatus(nmState: 70, nmConnectivity: 4, nmMetered: 4)
    monitor.accept(full, generation: 5)
    monitor.accept(portal, generation: 3)
    #expect(monitor.status == full && monitor.generation == 5)
    monitor.accept(portal, generation: 6)
    #expect(monitor.status == portal)
    monitor.accept(nil, generation: 6)
    #expect(monitor.status == nil)
}
