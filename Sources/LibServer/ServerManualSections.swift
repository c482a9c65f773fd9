/// The parts of `man/lib-server.1` that are prose, not flags: written here
/// as man(7) source, and put around the generated synopsis and options by
/// `ServerManualPage`.
enum ServerManualSections {
    static let name = #"lib-server \- reference server for the lib library service"#

    /// The manual's date (ISO 8601, as mandoc expects); fixed, so that the
    /// page only changes when its text does.
    static let date = "2025-12-01"

    static let description = #"""
        \fBlib-server\fR serves protocol v1 of the library service, the one
        \fBlib\fR(1) speaks: books as JSON documents with entity tags, writes with
        preconditions and idempotency keys, sessions, and a change feed.
        It keeps its data in an SQLite file, or in a PostgreSQL database that
        several servers can share and behave as one.
        It creates the database and its tables when they are missing.
        .PP
        The first line on standard output is
        \(lqlistening on http://\fIHOST\fR:\fIPORT\fR\(rq.
        With \fB\-\-ops\-listen\fR, the second line is
        \(lqoperations on http://\fIHOST\fR:\fIPORT\fR\(rq.
        SIGTERM and SIGINT stop it: requests in progress finish (for 2 seconds at
        most), then it exits with status 0.
        SIGUSR1 drains it, as \fBPOST /drain\fR on the operations listener does:
        \fB/readyz\fR answers 503 \(lqdraining\(rq from then on, and every request is
        still served, each connection closed after its answer; stop it once its
        load balancer has moved away.
        It speaks plain HTTP; put a reverse proxy such as nginx in front of it to
        end TLS.
        """#

    /// After the backup and restore options: what a restore does to devices, and when.
    static let backupAndRestore = #"""
        .PP
        After a restore, every device's next pull is answered as if its cursor
        were too old: it lists the books again and keeps its pending writes,
        which it then sends against the restored books; a write to a field the
        restore changed becomes a conflict for \fBlib resolve\fR.
        Writes acknowledged after the backup was made are gone from the server,
        and sessions begun since then are too: those devices sign in again.
        If a restore is interrupted, run it again.
        """#

    /// ENVIRONMENT to SEE ALSO.
    static let closing = #"""
        .SH ENVIRONMENT
        .TP
        \fBPGHOST\fR, \fBPGPASSFILE\fR, ...
        Read by libpq for a PostgreSQL database.
        Faults come only from the flags, never from the environment.
        .SH FILES
        These are the Debian package's; the service runs as the system user
        \fBlib\-server\fR.
        .TP
        \fI/etc/default/lib\-server\fR
        The service's flags: \fBLIB_SERVER_LISTEN\fR, \fBLIB_SERVER_DB\fR,
        \fBLIB_SERVER_SESSION_LIFETIME\fR, \fBLIB_SERVER_OPS_LISTEN\fR
        (127.0.0.1:9181) and \fBLIB_SERVER_OPTIONS\fR.
        .TP
        \fI/var/lib/lib\-server/library.sqlite\fR
        The service's database, in its state directory.
        .TP
        \fI/lib/systemd/system/lib\-server.service\fR
        The systemd unit.
        .SH EXIT STATUS
        0 when stopped by a signal, or when a user was added, a backup written
        or a restore done; 1 on a failure (the database cannot be opened, the
        address is in use, the backup file exists, the database to restore is
        in use); 2 on a usage error.
        .SH EXAMPLES
        Add a librarian to the packaged service's database, the password typed
        without echo:
        .PP
        .nf
        .RS
        read \-rs \-p 'Password: ' pw && printf '%s\en' "$pw" |
            sudo \-u lib\-server lib\-server user add alice \-\-role librarian \e
            \-\-db /var/lib/lib\-server/library.sqlite; unset pw
        .RE
        .fi
        .PP
        Try it out with demonstration data:
        .PP
        .nf
        .RS
        lib\-server \-\-db /tmp/library.sqlite \-\-listen 127.0.0.1:8080 \-\-demo
        .RE
        .fi
        .PP
        A nightly backup of the packaged service's database, while it serves:
        .PP
        .nf
        .RS
        sudo \-u lib\-server lib\-server backup \-\-replace \e
            \-\-db /var/lib/lib\-server/library.sqlite \-\-to /var/backups/lib\-server/library.sqlite
        .RE
        .fi
        .PP
        Put it back:
        .PP
        .nf
        .RS
        sudo systemctl stop lib\-server
        sudo \-u lib\-server lib\-server restore \-\-db /var/lib/lib\-server/library.sqlite \e
            \-\-from /var/backups/lib\-server/library.sqlite
        sudo systemctl start lib\-server
        .RE
        .fi
        .SH SEE ALSO
        \fBlib\fR(1), \fBsystemctl\fR(1), \fBjournalctl\fR(1);
        /usr/share/doc/lib\-server/DEPLOY.md (PostgreSQL, nginx, several servers,
        backup and restore).
        """#
}
