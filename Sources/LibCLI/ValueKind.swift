/// What an option's value or a positional argument is: decides how the parser
/// checks it and what the shell completions offer for it.
public enum ValueKind: Sendable, Equatable {
    /// Any text (a user name, a server URL).
    case text
    /// An account: `user@host[:port]` or a unique prefix.
    case account
    /// A resource path relative to the API root, such as `books/b-7`.
    case resourcePath
    /// A collection (`books`) or a document in it: what `lib get` reads.
    case collectionOrPath
    /// A document with a conflict waiting: what `lib resolve` settles.
    case conflictPath
    /// A document this device pushed a write of: what `lib revert` undoes.
    case pushedPath
    /// A non-negative duration: seconds (`90`, `1.5`) or with a unit (`90s`, `2m`).
    case duration
    /// `FIELD=STRING` or `FIELD:=JSON`, httpie's convention.
    case assignment
    /// One of a fixed list of words.
    case choice([String])
    /// The name of one of lib's commands.
    case command

    /// The duration kind under its earlier name, for declarations written before durations took units.
    public static func seconds(fractional: Bool) -> ValueKind { .duration }

    /// What the shell completions offer for a value of this kind.
    public var completion: CompletionKind {
        switch self {
        case .text, .duration: .none
        case .assignment: .fields
        case .account: .accounts
        case .resourcePath: .resourcePaths
        case .collectionOrPath: .collectionsAndPaths
        case .conflictPath: .conflictPaths
        case .pushedPath: .pushedPaths
        case .choice(let words): .words(words)
        case .command: .commands
        }
    }
}
