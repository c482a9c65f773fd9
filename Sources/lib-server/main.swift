import Foundation
import LibServer

exit(ServerCommandLine.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
