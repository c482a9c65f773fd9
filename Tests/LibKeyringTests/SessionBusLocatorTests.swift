@testable import LibKeyring
import Testing

@Suite struct SessionBusLocatorTests {
    @Test func keepsAnAddressTheEnvironmentGives() {
        let address = SessionBusLocator.fallbackAddress(
            environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/somewhere", "XDG_RUNTIME_DIR": "/run/user/1000"],
            userID: 1000, isSocket: { _ in true })
        #expect(address == nil)
    }

    @Test func prefersTheRuntimeDirectoryBus() {
        let address = SessionBusLocator.fallbackAddress(
            environment: ["XDG_RUNTIME_DIR": "/tmp/rt"], userID: 1000, isSocket: { _ in true })
        #expect(address == "unix:path=/tmp/rt/bus")
    }

    @Test func emptyAddressCountsAsUnset() {
        let address = SessionBusLocator.fallbackAddress(
            environment: ["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": "/tmp/rt"], userID: 1000,
            isSocket: { _ in true })
        #expect(address == "unix:path=/tmp/rt/bus")
    }

    @Test func fallsBackToRunUserWithoutARuntimeDirectory() {
        let address = SessionBusLocator.fallbackAddress(
            environment: [:], userID: 1000, isSocket: { $0 == "/run/user/1000/bus" })
        #expect(address == "unix:path=/run/user/1000/bus")
        let whenRuntimeHasNoBus = SessionBusLocator.fallbackAddress(
            environment: ["XDG_RUNTIME_DIR": "/tmp/rt"], userID: 1000, isSocket: { $0 == "/run/user/1000/bus" })
        #expect(whenRuntimeHasNoBus == "unix:path=/run/user/1000/bus")
    }

    @Test func nothingWhenThereIsNoSocket() {
        #expect(SessionBusLocator.fallbackAddress(
            environment: ["XDG_RUNTIME_DIR": "/tmp/rt"], userID: 1000, isSocket: { _ in false }) == nil)
    }

    @Test func escapesPathsForTheAddressSyntax() {
        #expect(SessionBusLocator.escapedAddressValue("/tmp/a b,c=d;é") == "/tmp/a%20b%2cc%3dd%3b%c3%a9")
        #expect(SessionBusLocator.escapedAddressValue("/run/user/1000/bus") == "/run/user/1000/bus")
    }

    @Test func ignoresARelativeRuntimeDirectory() {
        let address = SessionBusLocator.fallbackAddress(
            environment: ["XDG_RUNTIME_DIR": "relative"], userID: 7, isSocket: { _ in true })
        #expect(address == "unix:path=/run/user/7/bus")
    }
}
