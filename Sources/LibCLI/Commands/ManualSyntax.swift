/// `lib __man`: prints the man page, so that `scripts/generate-docs.sh` can
/// write `man/lib.1` from the binary. Hidden.
public enum ManualSyntax {
    public static let command = CommandSpec(
        name: "__man",
        summary: "Print the man page (roff)",
        discussion: "For scripts/generate-docs.sh.",
        isHidden: true)
}
