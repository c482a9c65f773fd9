// signalfd(2), which the Swift Glibc module does not expose: stop signals
// delivered as a descriptor in a poll() set instead of to a handler, so that
// they never interrupt a request in flight.
#ifndef CSIGNALS_H
#define CSIGNALS_H

/// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread (threads it starts later
/// inherit the mask) and returns a non-blocking, close-on-exec signalfd
/// for them, or -errno.
int csignals_open_stop_descriptor(void);

/// Reads every queued signal from the descriptor; returns how many.
int csignals_drain(int descriptor);

/// Whether SIGTERM, SIGINT or SIGHUP is pending (blocked and not yet read).
int csignals_stop_pending(void);

#endif
