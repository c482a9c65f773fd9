/// How long a keyring call may take.
public struct KeyringTimeouts: Sendable, Equatable {
    /// For talking to the bus and the Secret Service: they answer in
    /// milliseconds when they work, so a few seconds means they are stuck.
    public var call: Duration
    /// For a person to answer the keyring's unlock prompt, which needs time
    /// to type a password. A prompt that cannot be shown (no display) fails
    /// at once and does not wait for this.
    public var unlockPrompt: Duration

    public init(call: Duration = .seconds(5), unlockPrompt: Duration = .seconds(60)) {
        self.call = call
        self.unlockPrompt = unlockPrompt
    }
}
