// See include/csignals.h.
#include "csignals.h"

#include <errno.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

static void stop_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    // A closed terminal (the watch started from a shell that exits) stops
    // it the same way, instead of killing it with status 129.
    sigaddset(set, SIGHUP);
}

int csignals_open_stop_descriptor(void) {
    sigset_t set;
    stop_signals(&set);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -EINVAL;
    int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int csignals_drain(int descriptor) {
    struct signalfd_siginfo info;
    int count = 0;
    while (read(descriptor, &info, sizeof info) == (ssize_t)sizeof info) count++;
    return count;
}

int csignals_stop_pending(void) {
    sigset_t pending;
    if (sigpending(&pending) != 0) return 0;
    return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGHUP) == 1;
}

int csignals_open_drain_descriptor(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -EINVAL;
    int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}
