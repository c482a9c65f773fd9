/// The trimming lib and lib-server need, in one place (Foundation's
/// `trimmingCharacters(in:)` would load Foundation into every start-up).
extension StringProtocol {
    /// Without leading and trailing white space (spaces, tabs, line ends).
    public func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// Without leading and trailing spaces and tabs: HTTP's optional white
    /// space. Looked for in UTF-8 (both are single bytes that no other
    /// character contains), not character by character: every header of
    /// every answer goes through here.
    public func trimmingSpacesAndTabs() -> String {
        let text = Substring(self), isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = text.utf8.firstIndex(where: { !isSpace($0) }), let last = text.utf8.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(text[first..<text.utf8.index(after: last)])
    }

    /// Without trailing spaces.
    public func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }

    /// Without `character` at either end.
    public func trimming(_ character: Character) -> String {
        var s = Substring(self)
        while s.first == character { s = s.dropFirst() }
        while s.last == character { s = s.dropLast() }
        return String(s)
    }
}
