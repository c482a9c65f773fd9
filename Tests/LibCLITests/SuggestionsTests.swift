import LibCLI
import LibBase
import Testing

@Test(arguments: [
    ("status", "status", 0),
    ("stauts", "status", 1),  // one transposition
    ("statu", "status", 1),
    ("sttus", "status", 1),
    ("statusx", "status", 1),
    ("ca", "abc", 3),  // optimal string alignment: no edit of a transposed pair
    ("", "push", 4),
    ("kitten", "sitting", 3),
])
func damerauLevenshteinCountsEdits(_ a: String, _ b: String, _ distance: Int) {
    #expect(Suggestions.damerauLevenshtein(Array(a), Array(b)) == distance)
    #expect(Suggestions.damerauLevenshtein(Array(b), Array(a)) == distance)
}

@Test func suggestionsPreferTheClosestAndIgnoreDashes() {
    let commands = ["login", "logout", "switch", "get", "edit", "push", "status", "resolve"]
    #expect(Suggestions.nearest(to: "stauts", among: commands) == ["status"])
    #expect(Suggestions.nearest(to: "stat", among: commands) == ["status"])  // a prefix
    #expect(Suggestions.nearest(to: "log", among: commands) == ["login", "logout"])
    #expect(Suggestions.nearest(to: "gte", among: commands) == ["get"])
    #expect(Suggestions.nearest(to: "xyzzy", among: commands) == [])
    #expect(Suggestions.nearest(to: "s", among: commands) == [])
    #expect(Suggestions.nearest(to: "tcsh", among: ["bash", "zsh", "fish"]) == [])  // 2 edits is too far for 4 letters
    #expect(Suggestions.nearest(to: "--wiat", among: ["--wait", "--all", "--help"]) == ["--wait"])
    #expect(Suggestions.didYouMean("--wiat", among: ["--wait"]) == ". Did you mean '--wait'?")
    #expect(Suggestions.didYouMean("zzz", among: ["--wait"]) == "")
}
