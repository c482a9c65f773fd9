import LibSync
import LibJSON
import LibBase

/// What each way of settling a conflict would do, for `lib resolve PATH`:
/// one line per option, so that the user chooses knowing what is kept and
/// what is reverted.
struct ResolveChoices {
    let key: String
    let sides: Sides
    /// Writes of the path made on top of the conflicting one.
    let later: Int

    var text: String {
        var rows: [(String, String)] = []
        if let mine = sides.fieldMerge(clashesTake: .mine), let theirs = sides.fieldMerge(clashesTake: .theirs) {
            let kept = keptPhrase(mine)
            if mine.clashes.isEmpty {
                rows.append(("--merge", "sends the merge" + kept))
            } else {
                rows.append(("--mine", "your \(mine.clashes.joinedAsList())" + kept))
                rows.append(("--theirs", "the server's \(theirs.clashes.joinedAsList())" + kept))
            }
            rows.append(("--mine --whole", "your whole version" + reverts(mine.fromTheirs, "the server's change to")))
            rows.append(("--theirs --whole", "the server's whole version" + reverts(theirs.fromMine, "your change to")))
            rows.append(("--edit", mine.clashes.isEmpty ? "the merge, in your editor" : "the merge in your editor, both values of each clash marked"))
        } else if sides.mine == nil && sides.theirs == nil {
            rows.append(("--merge", "drops your delete: the server had deleted it too"))
        } else if sides.mine == nil {
            rows.append(("--mine", "sends your delete, reverting the server's changes"))
            rows.append(("--theirs", "keeps the server's version, dropping your delete"))
            rows.append(("--edit", "the server's version, in your editor"))
        } else {
            rows.append(("--mine", "creates it again with your version"))
            rows.append(("--theirs", "leaves it deleted, dropping your changes"))
            rows.append(("--edit", "your version in your editor, to create it again"))
        }
        let dropped = later == 0 ? "your write" : "your write and the \(Wording.writes(later)) made on top of it"
        rows.append(("--discard", "drops \(dropped); the server keeps its version"))
        let width = rows.map(\.0.count).max() ?? 0
        return "What each choice would do:\n" + rows.map { "  \($0.0.padding(to: width))  \($0.1)\n" }.joined()
    }

    /// "; keeps copies from the server and year from you".
    private func keptPhrase(_ merge: FieldMerge) -> String {
        var kept: [String] = []
        if !merge.fromTheirs.isEmpty { kept.append("\(merge.fromTheirs.joinedAsList()) from the server") }
        if !merge.fromMine.isEmpty { kept.append("\(merge.fromMine.joinedAsList()) from you") }
        return kept.isEmpty ? "" : "; keeps " + kept.joined(separator: " and ")
    }

    private func reverts(_ fields: [String], _ whose: String) -> String {
        fields.isEmpty ? "" : "; reverts \(whose) \(fields.joinedAsList())"
    }
}
