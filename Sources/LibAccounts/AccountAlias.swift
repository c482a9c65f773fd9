import LibBase

/// The rule for an account's alias (`--alias NAME`): 1 to 16 ASCII
/// letters, digits, `.`, `_` and `-`, starting with a letter or a digit.
/// Short, so that a prompt stays short; no `@`, so that it never reads as
/// an account's full name; and only characters every prompt shows as they are.
public enum AccountAlias {
    public static let rule = "1 to 16 letters, digits, '.', '_' or '-', starting with a letter or a digit"
    public static let maxLength = 16

    public static func isValid(_ alias: String) -> Bool {
        guard alias.utf8.count <= maxLength, UserName.isValid(alias), let first = alias.utf8.first else { return false }
        return first != UInt8(ascii: "_") && first != UInt8(ascii: "-")
    }
}
