import LibCLI
import LibCommands

CommandDispatcher(handlers: LibCommandHandlers.all).runAsMain(completionSource: CacheCompletionSource())
