// epoll(7) and eventfd(2) for LibHTTPServer's event loops. epoll_event is a
// packed struct on x86-64, which Swift does not import faithfully: these
// wrappers take and return plain values instead.
#ifndef CEVENTLOOP_H
#define CEVENTLOOP_H

#include <stdint.h>

/// What one readiness event says about one registered descriptor.
struct ceventloop_event {
    uint64_t token;
    uint32_t readable;
    uint32_t writable;
    /// The peer hung up, or the socket has an error.
    uint32_t hangup;
    /// The peer will send nothing more (it shut down its side, or hung up).
    uint32_t input_ended;
};

/// A close-on-exec epoll instance, or -errno.
int ceventloop_create(void);

/// Registers `fd` edge-triggered for input, output and peer hang-up, with `token`. 0 or -errno.
int ceventloop_add_stream(int epoll, int fd, uint64_t token);

/// Registers a listening socket level-triggered and exclusive (EPOLLEXCLUSIVE:
/// one waiting loop is woken per connection, not every loop). 0 or -errno.
int ceventloop_add_listener(int epoll, int fd, uint64_t token);

/// Registers `fd` level-triggered for input. 0 or -errno.
int ceventloop_add_input(int epoll, int fd, uint64_t token);

/// 0 or -errno.
int ceventloop_remove(int epoll, int fd);

/// Waits up to `timeout_ms` (-1: no limit); returns how many events were
/// written to `events`, or -errno (-EINTR included).
int ceventloop_wait(int epoll, struct ceventloop_event *events, int capacity, int timeout_ms);

/// A non-blocking, close-on-exec eventfd, or -errno.
int ceventloop_eventfd(void);

/// Adds one to the eventfd's counter: wakes the loop that waits on it.
void ceventloop_eventfd_signal(int fd);

/// Resets the eventfd's counter.
void ceventloop_eventfd_drain(int fd);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC; the descriptor, or -1 with errno set.
int ceventloop_accept(int fd, void *address, uint32_t *length);

/// The monotonic clock in nanoseconds.
uint64_t ceventloop_now_ns(void);

#endif
