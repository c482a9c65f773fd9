// signalfd(2), which the Swift Glibc module does not expose: stop signals
// delivered as a descriptor in a poll() set instead of to a handler, so that
// they never interrupt a request in flight.
#ifndef CSIGNALS_H
#define CSIGNALS_H

/// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread (threads it starts later
/// inherit the mask) and returns a non-blocking, close-on-exec signalfd
/// for them, or -errno.
int csignals_open_stop_descriptor(void);

/// Blocks SIGUSR1 (lib-server's drain signal) as the above does the stop
/// signals, and returns a signalfd for it, or -errno.
int csignals_open_drain_descriptor(void);

/// Reads every queued signal from the descriptor; returns how many.
int csignals_drain(int descriptor);

/// Whether SIGTERM, SIGINT or SIGHUP is pending (blocked and not yet read).
int csignals_stop_pending(void);

/// While an editor runs on `file` (in `directory`): lib ignores SIGINT and
/// SIGQUIT, which the editor at the terminal gets too and decides on (lib
/// cleans up once it exits), and SIGTERM or SIGHUP remove the file and the
/// directory before they end lib as they would have. 0, or -errno.
int csignals_guard_temporary_file(const char *file, const char *directory);

/// Puts back the handlers `csignals_guard_temporary_file` replaced.
void csignals_release_temporary_file(void);

#endif
