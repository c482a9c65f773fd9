import Foundation
import LibServer

let status = ServerCommandLine.main(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
// Not exit(): on PostgreSQL the change listener's thread may still be inside
// libpq's connect, in libkrb5, whose destructors exit() would run under it
// (an abort in k5_mutex_lock instead of a clean stop). Everything lib-server
// must finish is finished by now: the requests are answered and its own output
// is written unbuffered, except print()'s, flushed here.
fflush(nil)
_exit(status)
