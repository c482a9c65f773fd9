/// The trimming lib and lib-server need, in one place (Foundation's
/// `trimmingCharacters(in:)` would load Foundation into every start-up).
extension StringProtocol {
    /// Without leading and trailing white space (spaces, tabs, line ends).
    public func trimmingWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// Without leading and trailing spaces and tabs: HTTP's optional white space.
    public func trimmingSpacesAndTabs() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
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
