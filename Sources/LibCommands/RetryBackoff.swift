/// The delays between `push --wait` retries when the server is unreachable
/// or busy: exponential (0.5 s, 1 s, 2 s ... at most 8 s), each with "equal
/// jitter" (half fixed, half random) so that many clients cut off by one
/// outage do not come back in step; never shorter than the server's
/// Retry-After.
struct RetryBackoff {
    var first = 0.5
    var limit = 8.0
    private(set) var retries = 0

    /// The delay before the next retry, in seconds.
    mutating func nextDelay(retryAfter: Double?) -> Double {
        let ceiling = min(limit, first * Double(1 << min(retries, 16)))
        retries += 1
        let jittered = ceiling / 2 + Double.random(in: 0...(ceiling / 2))
        return max(jittered, retryAfter ?? 0)
    }
}

extension RetryBackoff {
    /// How long before its deadline a budget's last attempt starts: its
    /// timeouts get what is left, so that it ends by the deadline.
    static let lastAttemptLead = 0.5
    /// The room the final attempt keeps before the deadline, when the last
    /// one failed at once (a refused connection): enough for a connect
    /// on a near network.
    static let finalAttemptRoom = 0.1

    /// When the next attempt starts (monotonic seconds), `delay` from `now`
    /// but never later than the budget's last attempt; once that one has
    /// failed with time left, one more `finalAttemptRoom` before the
    /// deadline. Nil when the budget is spent.
    static func nextAttempt(now: Double, delay: Double, deadline: Double) -> Double? {
        let lastStart = deadline - lastAttemptLead
        if now < lastStart { return min(now + delay, lastStart) }
        let finalStart = deadline - finalAttemptRoom
        guard now < finalStart else { return nil }
        return min(now + delay, finalStart)
    }
}
