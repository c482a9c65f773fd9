/// Writes no push is sending and none has sent: saved since the last pass
/// began (a pass claims every write it may send first), put back in line
/// by `resolve`, or never reached by a pass that stopped early. `push --watch` pushes when this is above zero after the
/// store changed, and so is not woken again by its own push's writes.
extension AccountStore {
    public func unattemptedWrites() throws -> Int {
        Int(try database.scalar("SELECT count(*) FROM outbox WHERE status = 'pending' AND attempts = 0 AND claimed = 0")?.integer ?? 0)
    }
}
