import LibCLI

// Commands without a handler here parse, then say they are not implemented
// yet; each command's issue adds its handler (from LibCommands) to this table.
CommandDispatcher(handlers: [:]).runAsMain()
