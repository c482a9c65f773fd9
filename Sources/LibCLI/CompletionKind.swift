/// What a shell should offer for an option's value or an argument.
public enum CompletionKind: Sendable, Equatable {
    /// Nothing: free text the shell cannot guess (a URL, a number).
    case none
    /// Signed-in account names, from `lib __complete accounts`.
    case accounts
    /// Cached resource paths, from `lib __complete paths PREFIX`.
    case resourcePaths
    /// The collection and the cached paths, from `lib __complete resources PREFIX`.
    case collectionsAndPaths
    /// The paths with a conflict, from `lib __complete conflicts PREFIX`.
    case conflictPaths
    /// The paths this device pushed writes of, from `lib __complete pushed PREFIX`.
    case pushedPaths
    /// `FIELD=` and `FIELD:=` for the book's fields, from `lib __complete fields PREFIX`.
    case fields
    /// The names of lib's commands.
    case commands
    /// A fixed list of words.
    case words([String])
}
