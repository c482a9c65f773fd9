/// The rule for a user name, the same on the server (`lib-server user add`)
/// and in lib: 1–64 ASCII letters, digits, `.`, `_` and `-`, not starting
/// with `.`. lib checks a name the server gives before it makes any file:
/// the name becomes a directory name (`user@host`), and a name such as
/// `../x`, `a/b` or one holding control characters would leave lib's
/// directories or reach a terminal raw. The user id the server gives
/// (written into the accounts file) follows the same rule.
public enum UserName {
    public static let rule = "1 to 64 letters, digits, '.', '_' or '-', not starting with '.'"

    public static func isValid(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...64).contains(bytes.count), bytes.first != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}
