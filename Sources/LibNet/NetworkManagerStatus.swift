import CNetworkManager

/// What NetworkManager says about the network, from its D-Bus properties
/// State, Connectivity and Metered (https://networkmanager.dev/docs/api/latest/nm-dbus-types.html).
public struct NetworkManagerStatus: Sendable, Hashable {
    /// NMState, reduced to what an explanation can use.
    public enum State: Sendable, Hashable {
        case connecting
        case connected
        case disconnected
        case other
    }

    /// NMConnectivityState, reduced likewise.
    public enum Connectivity: Sendable, Hashable {
        case full
        case captivePortal
        case limited
        case none
        case unknown
    }

    public var state: State
    public var connectivity: Connectivity
    public var metered: Bool

    /// Whether NetworkManager says requests cannot get out yet: a captive
    /// portal, limited connectivity, or a connection still being made. A
    /// retry into such a network is wasted; `--wait` and `--watch` wait
    /// for it to change instead.
    public var holdsRequests: Bool {
        connectivity == .captivePortal || connectivity == .limited || state == .connecting
    }

    public init(state: State, connectivity: Connectivity, metered: Bool) {
        self.state = state
        self.connectivity = connectivity
        self.metered = metered
    }

    /// NMState numbers (NM_STATE_*), from the D-Bus "State" property.
    public init(nmState: UInt32, nmConnectivity: UInt32, nmMetered: UInt32) {
        switch nmState {
        case 40: state = .connecting  // NM_STATE_CONNECTING
        case 50, 60, 70: state = .connected  // CONNECTED_LOCAL, _SITE, _GLOBAL
        case 20, 30: state = .disconnected  // DISCONNECTED, DISCONNECTING
        default: state = .other
        }
        switch nmConnectivity {
        case 4: connectivity = .full  // NM_CONNECTIVITY_FULL
        case 2: connectivity = .captivePortal  // NM_CONNECTIVITY_PORTAL
        case 3: connectivity = .limited  // NM_CONNECTIVITY_LIMITED
        case 1: connectivity = .none  // NM_CONNECTIVITY_NONE
        default: connectivity = .unknown
        }
        // NMMetered: YES (1) and GUESS_YES (3).
        metered = nmMetered == 1 || nmMetered == 3
    }
}

/// Where NetworkManager's view comes from. Asked only after a failure, and
/// only to add detail: its absence must change nothing.
public protocol NetworkManagerSource: Sendable {
    /// NetworkManager's current status, or nil when it is not running
    /// (org.freedesktop.NetworkManager has no owner on the system bus) or
    /// cannot be asked.
    func currentStatus() -> NetworkManagerStatus?
}

/// The source that reports no NetworkManager (tests, and callers that
/// must never touch D-Bus).
public struct NoNetworkManager: NetworkManagerSource {
    public init() {}
    public func currentStatus() -> NetworkManagerStatus? { nil }
}
