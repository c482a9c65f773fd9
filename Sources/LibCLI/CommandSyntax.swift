/// A command's declarations: its name, known without building the rest, and
/// its whole `CommandSpec`, built on first use. The registry keeps these, so
/// that a command line pays only for the command it names.
public protocol CommandSyntax: SendableMetatype {
    static var name: String { get }
    static var command: CommandSpec { get }
}
