/// The man page's hand-written sections: what the registry cannot say.
enum ManualSections {
    /// A term and its explanation, for tagged lists.
    struct Entry {
        let term: String
        let text: String
    }

    static let description = """
        lib is the command-line client of a library service. It works offline \
        first: it shows the last known data at once, keeps every change in a \
        durable outbox on this device, and sends the changes in order, exactly \
        once, when the server can be reached. A change made meanwhile on the \
        server becomes a conflict to decide on, not an error.

        lib keeps several accounts side by side, each named user@host[:port] \
        with its own cache and outbox; writes made under one account are never \
        sent under another. Tokens are kept only in the Secret Service keyring.

        Global options may be given anywhere on the line, before or after the \
        command (-- ends options). ACCOUNT is user@host[:port] or \
        any unambiguous prefix of it, such as alice; it is taken from -A, else \
        from LIB_ACCOUNT, else the rule for the working directory (see \
        rule), else the current account (see switch). Every \
        command's output names the account it acted on. Summaries go to \
        standard output, problems to standard error; colour is used only on \
        a terminal, tables are cut to its width, and long output goes through \
        a pager.
        """

    static let machineOutput = """
        With --json every command prints one JSON document on standard output, \
        and a failing command one more on standard error: \
        {"error": {"message", "exit_code", "reason"}}. The fields of each \
        command's document are in JSON.md, with lib's other guides in \
        /usr/share/doc/lib, and their JSON Schemas in /usr/share/lib/schemas \
        (both under /usr/local after make install). Fields are added, never \
        renamed or removed; \
        times are unix seconds, integers.

        lib status --porcelain prints, for each account, key value lines \
        (account, current, pending, conflicts, rejected, set-aside), then one \
        'write STATUS KIND ATTEMPTS CREATED PATH FIELDS' line per write, then \
        a blank line; also documented in JSON.md.

        With -q, success and temporary failures (exit 75) print nothing, \
        unless the oldest pending write has waited longer than \
        LIB_QUIET_AFTER (default one day); conflicts, rejected writes, \
        authentication and other failures always print. That is the form for \
        cron and timers: a machine offline for an hour sends no mail, one \
        that has not synced for a day does.
        """

    static let environment: [Entry] = [
        Entry(term: "LIB_HOME", text: """
            When set and not empty, the single directory for all of lib's files: \
            config and data below it.
            """),
        Entry(term: "LIB_ACCOUNT", text: "The account to act as when -A is not given (before any rule)."),
        Entry(term: "XDG_CONFIG_HOME, XDG_DATA_HOME", text: """
            Where lib's configuration and data go when LIB_HOME is not \
            set: a lib directory in each, by default in ~/.config and \
            ~/.local/share.
            """),
        Entry(term: "NO_COLOR", text: "When set and not empty, output is never coloured (as with --no-color)."),
        Entry(term: "COLUMNS", text: "The width tables are cut to on a terminal, instead of the width the terminal reports."),
        Entry(term: "TERM", text: "dumb: no colour, no bold and no progress line redrawn in place (as off a terminal)."),
        Entry(term: "LIB_PAGER, PAGER", text: """
            The pager for long output on a terminal (LIB_PAGER wins); default \
            less, with LESS=FRX when LESS is unset, so output shorter than the \
            screen is simply printed. Empty or cat: no pager.
            """),
        Entry(term: "LIB_QUIET_AFTER", text: """
            With -q, how long the oldest pending write may wait before a \
            temporary failure is printed after all: seconds, or with s, m, h or \
            d (default 1d).
            """),
        Entry(term: "LIB_GUARD", text: """
            BOOKS,PERCENT (default 20,20): push (and edit --push) refuses, exit \
            5, sending nothing, writes that would delete books or blank a field \
            of more than BOOKS books and more than PERCENT % of the offline \
            library's books; off: no such check on this device (the server \
            keeps its own). push --force gets past it.
            """),
        Entry(term: "LIB_DEBUG", text: """
            1 traces each request on standard error as -v does; 2 as -vv does \
            (libcurl's trace). Authorization and cookies are always redacted.
            """),
        Entry(term: "VISUAL, EDITOR", text: "The editor that edit and resolve --edit open."),
        Entry(term: "DBUS_SESSION_BUS_ADDRESS", text: """
            The session bus where the keyring is. When it is unset, as under \
            cron, lib uses $XDG_RUNTIME_DIR/bus, else /run/user/$UID/bus, if \
            it exists (it does while the user has a session, or always with \
            dbus-user-session and loginctl enable-linger). lib doctor says which \
            one it found and whether cron will find it.
            """),
        Entry(term: "DBUS_SYSTEM_BUS_ADDRESS", text: """
            The system bus where NetworkManager is. lib asks it about the network \
            only after a request failed (a captive portal, limited connectivity, \
            a connection still being made) and while it waits; without \
            NetworkManager or the bus nothing changes.
            """),
        Entry(term: "LIB_METERED", text: """
            defer: background pushes (push --watch, and push --wait off a \
            terminal) hold writes while NetworkManager says the connection is \
            metered. A push run at a terminal, or without --wait, is never held. \
            push --watch does not pull either while metered.
            """),
        Entry(term: "LIB_WATCH_PULL_INTERVAL", text: """
            Seconds between the pulls push --watch makes while idle (default \
            900; 0: only at start and after pushes).
            """),
        Entry(term: "XDG_RUNTIME_DIR", text: "Where the session bus socket is looked for (bus) when DBUS_SESSION_BUS_ADDRESS is unset."),
        Entry(term: "LIB_CA_BUNDLE", text: """
            A PEM file of CA certificates to trust instead of the system's, for \
            a server with a private CA. Verification is never turned off.
            """),
        Entry(term: "LIB_MAX_ANSWER_BYTES", text: """
            The most lib reads of one answer from the server, in bytes, or with \
            a K or M suffix (default 8M). lib stops the transfer there, keeps \
            nothing of it and says so; a collection is asked for in smaller pages.
            """),
        Entry(term: "http_proxy, https_proxy, all_proxy, no_proxy", text: """
            The proxy for http and https servers, and the hosts that bypass it, \
            with curl's rules (HTTPS_PROXY, ALL_PROXY and NO_PROXY too, but not \
            HTTP_PROXY). A failure says whether the proxy or the server behind it failed.
            """),
    ]

    static let files: [Entry] = [
        Entry(term: "$LIB_HOME/config, else ~/.config/lib", text: """
            Configuration: accounts, the signed-in accounts, one a line; \
            current, the name of the current account; rules, the account \
            chosen by directory (lib rule), one a line.
            """),
        Entry(term: "$LIB_HOME/data/accounts/ACCOUNT/store.sqlite, else ~/.local/share/lib/accounts/ACCOUNT/store.sqlite", text: """
            The account's SQLite store (mode 0600, in a directory of mode \
            0700): the cache and the outbox.
            """),
        Entry(term: "$LIB_HOME/data/accounts/ACCOUNT/push.lock", text: """
            The account's push lock: one push of an account at a time \
            (an overlapping push waits for it within its own time).
            """),
        Entry(term: "$LIB_HOME/data/set-aside, else ~/.local/share/lib/set-aside", text: """
            Outboxes set aside at logout, per identity (server and user id), \
            restored at that identity's next login.
            """),
    ]

    static let examples: [Entry] = [
        Entry(term: "lib login https://library.example.org --user alice", text: "Sign in; the password is asked for."),
        Entry(term: "lib get books/b-7", text: "Print a book, from the cache when the server cannot be reached."),
        Entry(term: "lib edit books/b-7 year:=1966", text: "Change a field; the change waits in the outbox."),
        Entry(term: "lib push -n", text: "Say what a push would send, in order, sending and changing nothing (offline too)."),
        Entry(term: "lib push", text: "Send the pending changes."),
        Entry(term: "lib log books/b-7", text: "What this device pushed of the book, and its history on the server: every user's changes."),
        Entry(term: "lib revert books/b-7", text: "Put back what your last pushed change of the book changed, as a new write."),
        Entry(term: "lib new books title=Emma", text: "A new book with an id made on this device; prints its path."),
        Entry(term: "*/10 * * * * lib -q push --all --wait 60", text: """
            A crontab line: every ten minutes, send every account's changes, \
            trying for up to a minute; mail only for what needs a person, or \
            when writes have waited longer than LIB_QUIET_AFTER.
            """),
        Entry(term: "lib status", text: "Each pending write: path, kind, fields, age; lib diff shows the values."),
        Entry(term: "lib status --prompt", text: """
            One line, fast enough for a shell prompt: it never touches the network. \
            What waits in other accounts follows, added up: alice +2 | +1. \
            An account shows as its alias (lib switch ACCOUNT --alias NAME) or \
            its user name; a name is cut to 20 characters.
            """),
        Entry(term: "ExecStart=/usr/bin/lib -q push --wait 60 --all", text: """
            The packaged systemd user unit lib-push-once.service (Type=oneshot, \
            exit 75 counted as success), run every 10 minutes by lib-push.timer \
            (OnUnitActiveSec=10min): systemctl --user enable --now lib-push.timer. \
            Or lib-push.service, ExecStart=/usr/bin/lib push --watch --all, which \
            pushes each write as it is saved. Installed with make install, they \
            name PREFIX/bin/lib.
            """),
        Entry(term: "lib doctor", text: "Check the bus, keyring, tokens, stores and servers, and say how to fix what is wrong."),
        Entry(term: "lib status --json | jq '.[0].pending'", text: "Pending writes of the account, for a script."),
    ]

    /// Other manuals, as (name, section).
    static let seeAlso: [(name: String, section: String)] = [
        ("secret-tool", "1"), ("crontab", "5"), ("systemd.timer", "5"), ("less", "1"),
    ]
}
