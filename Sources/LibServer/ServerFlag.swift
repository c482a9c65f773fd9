/// One flag of lib-server's command line, declared once: its spelling, its
/// value, its words for `--help` and for the man page, and what it does to
/// the options it is parsed into. `ServerFlags` lists them; parsing, the
/// usage text and `man/lib-server.1` all come from that list.
struct ServerFlag<Options>: Sendable {
    /// `db` for `--db`.
    let name: String
    /// `v` for `-v`.
    let short: Character?
    /// What the value is called (`PATH|URI`); nil for a switch.
    let value: String?
    /// One line for `--help`.
    let summary: String
    /// The man page's paragraph.
    let manual: String
    /// Missing it is a usage error.
    var isRequired = false
    /// It may be given more than once (`--fault SPEC...`).
    var isRepeatable = false
    /// Parsing stops at it, whatever follows (`--help`, `--version`).
    var endsParsing = false
    /// Sets what the flag means; the value is "" for a switch. Throws a
    /// `ServerUsageError` for a value it cannot take.
    let apply: @Sendable (inout Options, String) throws(ServerUsageError) -> Void

    var longForm: String { "--" + name }
    var shortForm: String? { short.map { "-\($0)" } }
    /// `--db PATH|URI`, `-v, --verbose`.
    var label: String {
        ([shortForm, longForm].compactMap { $0 }.joined(separator: ", ")) + (value.map { " " + $0 } ?? "")
    }
}

/// A command line lib-server refuses, with what to say (exit 2).
struct ServerUsageError: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}
