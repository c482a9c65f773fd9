import LibBase

/// Runs one parsed command: reads its options through the command's syntax
/// declarations, writes through the context, and returns the exit status (or
/// throws an error that `ErrorReport` turns into one).
public typealias CommandHandler = @Sendable (ParsedCommand, CommandContext) throws -> ExitCode
