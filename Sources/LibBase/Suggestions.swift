/// Finds the known words closest to a mistyped one, for "Did you mean …?".
public enum Suggestions {
    /// The candidates nearest to `typed`: within a Damerau–Levenshtein distance
    /// of a third of its length (at least 1, at most 2), or starting with what
    /// was typed (from 2 letters). Leading dashes are ignored. At most three,
    /// all equally near, in the order given.
    public static func nearest(to typed: String, among candidates: [String]) -> [String] {
        let word = Array(undashed(typed))
        guard !word.isEmpty else { return [] }
        let limit = min(2, max(1, word.count / 3))
        var scored: [(name: String, distance: Int)] = []
        for candidate in candidates {
            let target = Array(undashed(candidate))
            var distance = damerauLevenshtein(word, target)
            if word.count >= 2, target.starts(with: word) { distance = min(distance, 1) }
            if distance <= limit { scored.append((candidate, distance)) }
        }
        guard let best = scored.map(\.distance).min() else { return [] }
        return Array(scored.filter { $0.distance == best }.map(\.name).prefix(3))
    }

    /// `". Did you mean 'status'?"`, or "" when nothing is close.
    public static func didYouMean(_ typed: String, among candidates: [String]) -> String {
        let near = nearest(to: typed, among: candidates)
        guard !near.isEmpty else { return "" }
        return ". Did you mean " + Wording.list(near.map { "'\($0)'" }, conjunction: "or") + "?"
    }

    /// The optimal-string-alignment distance: insertions, deletions,
    /// substitutions and transpositions of adjacent characters each cost 1.
    public static func damerauLevenshtein(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        let width = b.count + 1
        var d = [Int](repeating: 0, count: (a.count + 1) * width)
        for i in 0...a.count { d[i * width] = i }
        for j in 0...b.count { d[j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(d[(i - 1) * width + j] + 1, d[i * width + j - 1] + 1, d[(i - 1) * width + j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, d[(i - 2) * width + j - 2] + 1)
                }
                d[i * width + j] = value
            }
        }
        return d[a.count * width + b.count]
    }

    private static func undashed(_ word: String) -> Substring {
        word.drop { $0 == "-" }
    }
}
