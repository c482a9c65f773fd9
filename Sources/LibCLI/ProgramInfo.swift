/// Facts about the program that help, `--version` and the man page print.
public enum ProgramInfo {
    /// The executable's name, as users type it.
    public static let name = "lib"
    /// The release version, printed by `lib --version`.
    public static let version = "0.1.0"
    /// The date on the man page's title line (ISO 8601, as mandoc expects);
    /// fixed so that the generated page only changes when its text does.
    public static let manualDate = "2025-11-29"
    /// The one-line description used by the man page's NAME section and `lib --help`.
    public static let tagline = "offline-first, multi-account client for a library service"
}
