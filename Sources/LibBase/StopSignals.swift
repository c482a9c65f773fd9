import Glibc

/// SIGINT, SIGTERM and SIGHUP, the signals that stop lib and lib-server.
public enum StopSignals {
    public static let numbers: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// A parent may have started the program with them blocked (Foundation's
    /// Process leaves its children so, as do some job runners): then Ctrl-C
    /// or `kill` would be held until the program ends by itself (an endless
    /// pull ran to its budget). Only the mask changes: a signal the parent
    /// chose to ignore (a shell's background job) stays ignored.
    public static func unblock() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in numbers { sigaddset(&signals, number) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }
}
