/// The shells `lib completion` writes scripts for.
public enum Shell: String, CaseIterable, Sendable {
    case bash
    case zsh
    case fish

    /// The script that completes lib's command line in this shell.
    public func completionScript(for registry: CommandRegistry) -> String {
        switch self {
        case .bash: BashCompletionScript(registry: registry).render()
        case .zsh: ZshCompletionScript(registry: registry).render()
        case .fish: FishCompletionScript(registry: registry).render()
        }
    }

    /// The file name the script is installed and checked in under.
    public var scriptFileName: String {
        switch self {
        case .bash: "lib.bash"
        case .zsh: "_lib"
        case .fish: "lib.fish"
        }
    }
}
