#if canImport(Glibc)
import Glibc
#endif

/// Where lib keeps its files. `LIB_HOME`, when set and not empty, is the one
/// root (`config`, `data`, `state` below it; tests use it); otherwise the XDG
/// base directories, each with a `lib` directory: `$XDG_CONFIG_HOME/lib`
/// (default `~/.config/lib`), `$XDG_DATA_HOME/lib` (`~/.local/share/lib`),
/// `$XDG_STATE_HOME/lib` (`~/.local/state/lib`). Made only by `resolve`,
/// which refuses directories other users can change.
public struct LibDirectories: Sendable, Equatable {
    /// Settings: the accounts index and the current account.
    public let config: String
    /// Each account's store: cache and outbox.
    public let data: String
    /// What is kept between runs but is neither: locks, set-aside outboxes.
    public let state: String

    /// The directories for this environment. Fails only when neither
    /// `LIB_HOME` nor the home directory can be found.
    public static func resolve(environment: [String: String]) throws(CommandFailure) -> LibDirectories {
        if let root = environment["LIB_HOME"], !root.isEmpty {
            try refuseIfOthersCanChange(root, named: "LIB_HOME")
            let directories = LibDirectories(
                config: join(root, "config"), data: join(root, "data"), state: join(root, "state"))
            try directories.refuseIfOthersCanChange()
            return directories
        }
        // The XDG spec says relative paths in these variables are invalid and
        // must be ignored.
        func base(_ variable: String, default relative: String) throws(CommandFailure) -> String {
            if let value = environment[variable], value.hasPrefix("/") { return value }
            return join(try homeDirectory(environment), relative)
        }
        let directories = LibDirectories(
            config: join(try base("XDG_CONFIG_HOME", default: ".config"), "lib"),
            data: join(try base("XDG_DATA_HOME", default: ".local/share"), "lib"),
            state: join(try base("XDG_STATE_HOME", default: ".local/state"), "lib"))
        try directories.refuseIfOthersCanChange()
        return directories
    }

    /// lib's directories hold every account's writes and decide which
    /// server gets a token: like ssh with `~/.ssh`, lib refuses one that
    /// another user owns or may write to (they could plant a symlink or an
    /// account there). A directory that does not exist yet is made 0700.
    private func refuseIfOthersCanChange() throws(CommandFailure) {
        for directory in [config, data, state] { try Self.refuseIfOthersCanChange(directory, named: nil) }
    }

    private static func refuseIfOthersCanChange(_ path: String, named variable: String?) throws(CommandFailure) {
        // Followed if it is a link (dotfile managers link ~/.config/lib):
        // what counts is who can change the directory lib writes in.
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let what = variable.map { "\($0) (\(path))" } ?? path
        if info.st_uid != getuid() {
            throw CommandFailure("\(what) belongs to another user (uid \(info.st_uid)): lib keeps its files only in a directory of your own")
        }
        if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
            throw CommandFailure("\(what) can be changed by other users (mode \(String(info.st_mode & 0o7777, radix: 8))): "
                                 + "run `chmod go-w \(path)`, or give lib a directory of your own")
        }
    }

    /// `<config>/accounts`: the signed-in accounts, one a line, the name
    /// (`user@host[:port]`) in the first tab-separated column.
    public var accountsFile: String { Self.join(config, "accounts") }

    /// `<config>/current`: the name of the current account.
    public var currentAccountFile: String { Self.join(config, "current") }

    /// `HOME`, else the password database's entry for this user.
    private static func homeDirectory(_ environment: [String: String]) throws(CommandFailure) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        if getpwuid_r(getuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir {
            let home = String(cString: directory)
            if !home.isEmpty { return home }
        }
        throw CommandFailure("can't find your home directory: set HOME, or LIB_HOME for lib's files")
    }

    static func join(_ base: String, _ component: String) -> String {
        base.hasSuffix("/") ? base + component : base + "/" + component
    }
}
