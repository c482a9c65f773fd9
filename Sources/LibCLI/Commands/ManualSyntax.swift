/// `lib __man`: prints the man page, so that `scripts/generate-docs.sh` can
/// write `man/lib.1` from the binary. Hidden.
public enum ManualSyntax: CommandSyntax {
    public static let name = "__man"

    public static let command = CommandSpec(
        name: name,
        summary: "Print the man page (roff)",
        discussion: "For scripts/generate-docs.sh.",
        isHidden: true)
}
