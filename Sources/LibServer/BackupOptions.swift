/// What `lib-server backup`'s flags ask for (`ServerFlags.backup`).
struct BackupOptions {
    var database = ""
    var target = ""
    var replace = false
    var wantsHelp = false
}

/// What `lib-server restore`'s flags ask for (`ServerFlags.restore`).
struct RestoreOptions {
    var database = ""
    /// nil: only a new feed epoch (after a PostgreSQL restore).
    var source: String?
    var wantsHelp = false
}
