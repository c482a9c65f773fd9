/// Writes that no push has started yet: saved since the last pass began
/// (a pass marks every pending write attempted first), or put back in line
/// by `resolve`. `push --watch` pushes when this is above zero after the
/// store changed, and so is not woken again by its own push's writes.
extension AccountStore {
    public func unattemptedWrites() throws -> Int {
        Int(try database.scalar("SELECT count(*) FROM outbox WHERE status = 'pending' AND attempts = 0")?.integer ?? 0)
    }
}
