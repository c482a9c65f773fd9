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

        Global options go before the command. ACCOUNT is user@host[:port] or \
        any unambiguous prefix of it, such as alice; it is taken from -A, else \
        from LIB_ACCOUNT, else the current account (see switch). Every \
        command's output names the account it acted on.
        """

    static let environment: [Entry] = [
        Entry(term: "LIB_HOME", text: """
            When set and not empty, the single directory for all of lib's files: \
            config, data and state below it.
            """),
        Entry(term: "LIB_ACCOUNT", text: "The account to act as when -A is not given."),
        Entry(term: "XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME", text: """
            Where lib's configuration, data and state go when LIB_HOME is not \
            set: a lib directory in each, by default in ~/.config, \
            ~/.local/share and ~/.local/state.
            """),
        Entry(term: "NO_COLOR", text: "When set and not empty, output is never coloured."),
        Entry(term: "VISUAL, EDITOR", text: "The editor that edit and resolve --edit open."),
        Entry(term: "DBUS_SESSION_BUS_ADDRESS", text: """
            The session bus where the keyring is. When it is unset, as under \
            cron, lib uses $XDG_RUNTIME_DIR/bus if it exists.
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
            metered. A push run at a terminal, or without --wait, is never held.
            """),
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
            current, the name of the current account.
            """),
        Entry(term: "$LIB_HOME/data, else ~/.local/share/lib", text: """
            A directory per account (mode 0700) holding its SQLite store \
            (mode 0600): the cache and the outbox.
            """),
        Entry(term: "$LIB_HOME/state, else ~/.local/state/lib", text: """
            State kept between runs that is neither configuration nor data, \
            such as push locks.
            """),
    ]

    static let examples: [Entry] = [
        Entry(term: "lib login https://library.example.org --user alice", text: "Sign in; the password is asked for."),
        Entry(term: "lib get books/b-7", text: "Print a book, from the cache when the server cannot be reached."),
        Entry(term: "lib edit books/b-7 year:=1966", text: "Change a field; the change waits in the outbox."),
        Entry(term: "lib push", text: "Send the pending changes."),
        Entry(term: "*/10 * * * * lib push --all --wait 60", text: """
            A crontab line: every ten minutes, send every account's changes, \
            trying for up to a minute.
            """),
        Entry(term: "lib status", text: "Each pending write: path, kind, fields, age; lib diff shows the values."),
        Entry(term: "lib status --prompt", text: "One line, fast enough for a shell prompt: it never touches the network."),
    ]

    /// Other manuals, as (name, section).
    static let seeAlso: [(name: String, section: String)] = [
        ("secret-tool", "1"), ("crontab", "5"),
    ]
}
