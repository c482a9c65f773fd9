import LibBase

/// `LIB_TEST_CLOCK_OFFSET`: seconds added to lib's wall clock, so that an
/// end-to-end trial moves lib's time as it moves lib-server's (`PUT
/// /_test/clock`) and lives months in minutes. Read by debug builds only,
/// the ones the tests run: a release build reads the wall clock alone.
enum TestClockOffset {
    static func clock(_ environment: [String: String]) -> @Sendable () -> UnixTime {
        #if DEBUG
        if let text = environment["LIB_TEST_CLOCK_OFFSET"], let offset = Double(text), offset.isFinite {
            return { UnixTime(secondsSince1970: UnixTime.now().secondsSince1970 + offset) }
        }
        #endif
        return { UnixTime.now() }
    }
}
