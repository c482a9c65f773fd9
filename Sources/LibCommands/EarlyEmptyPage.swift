/// A waiting feed request answered with nothing well before its wait was
/// over: a server whose waiter caps are full answers its longest waiter so
/// (issue 47). Asking again at once would displace the next longest, which
/// asks again at once: so the watcher pauses first, about a second, spread
/// so that a crowd's waiters do not all come back together.
enum EarlyEmptyPage {
    /// Seconds to pause after an empty answer that came after `waited`
    /// seconds of an `asked`-second wait; 0 when it came near its end.
    /// `random` is in 0...1.
    static func pause(waited: Double, asked: Int, random: Double) -> Double {
        guard asked > 0, waited < Double(asked) - 1 else { return 0 }
        return 0.5 + random
    }
}
