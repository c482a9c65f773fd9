// See include/csignals.h: the editor's temporary file outlives no signal.
#include "csignals.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

// Copied in before the handlers are installed: a handler may only read them.
static char guarded_file[PATH_MAX];
static char guarded_directory[PATH_MAX];
static struct sigaction saved_term, saved_hup, saved_int, saved_quit;

static void remove_and_die(int signal_number) {
    // unlink, rmdir, sigaction and raise are async-signal-safe.
    unlink(guarded_file);
    rmdir(guarded_directory);
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(signal_number, &fallback, NULL);
    raise(signal_number);
}

int csignals_guard_temporary_file(const char *file, const char *directory) {
    if (strlen(file) >= sizeof guarded_file || strlen(directory) >= sizeof guarded_directory) return -ENAMETOOLONG;
    strcpy(guarded_file, file);
    strcpy(guarded_directory, directory);
    struct sigaction cleanup, ignore;
    memset(&cleanup, 0, sizeof cleanup);
    cleanup.sa_handler = remove_and_die;
    sigemptyset(&cleanup.sa_mask);
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGTERM, &cleanup, &saved_term) != 0 || sigaction(SIGHUP, &cleanup, &saved_hup) != 0
        || sigaction(SIGINT, &ignore, &saved_int) != 0 || sigaction(SIGQUIT, &ignore, &saved_quit) != 0) return -errno;
    return 0;
}

void csignals_release_temporary_file(void) {
    sigaction(SIGTERM, &saved_term, NULL);
    sigaction(SIGHUP, &saved_hup, NULL);
    sigaction(SIGINT, &saved_int, NULL);
    sigaction(SIGQUIT, &saved_quit, NULL);
}
