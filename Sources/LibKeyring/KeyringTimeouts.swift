/// How long a keyring call may take.
public struct KeyringTimeouts: Sendable, Equatable {
    /// For talking to the bus and the Secret Service: they answer in
    /// milliseconds when they work (20–50 ms under load), so most of a
    /// second means they are stuck. 0.9 s, so that a command that finds
    /// the keyring stuck has said so within 1 s (DESIGN.md).
    public var call: Duration
    /// For a person to answer the keyring's unlock prompt, which needs time
    /// to type a password. A prompt that cannot be shown (no display) fails
    /// at once and does not wait for this.
    public var unlockPrompt: Duration

    public init(call: Duration = .milliseconds(900), unlockPrompt: Duration = .seconds(60)) {
        self.call = call
        self.unlockPrompt = unlockPrompt
    }
}
