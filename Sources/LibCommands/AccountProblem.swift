/// A problem one account's push or pull has to report, and whether its
/// words already name the account: where several accounts speak (`--all`,
/// `push --watch`), a line that does not is prefixed with the account's name.
struct AccountProblem: Equatable, CustomStringConvertible {
    let text: String
    let namesAccount: Bool

    init(_ text: String, namesAccount: Bool) {
        self.text = text
        self.namesAccount = namesAccount
    }

    /// The line for `account` among others: prefixed unless it names it.
    func named(_ account: String) -> String {
        namesAccount ? text : "\(account): \(text)"
    }

    var description: String { text }
}
