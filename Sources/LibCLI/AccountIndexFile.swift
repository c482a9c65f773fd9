import LibBase

/// A read-only view of the accounts index (`<config>/accounts`) and the
/// current account (`<config>/current`), for completion. The accounts
/// module owns these files and writes them.
public struct AccountIndexFile: Sendable {
    public let directories: LibDirectories

    public init(directories: LibDirectories) {
        self.directories = directories
    }

    /// The account names, in file order: the first tab-separated column of
    /// each line; blank lines and `#` comments are skipped. Empty when there
    /// is no file.
    public func accountNames() -> [String] {
        guard let text = FileDescriptorReader.readText(atPath: directories.accountsFile) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            let name = line.prefix { $0 != "\t" }.trimmingWhitespace()
            return name.isEmpty || name.hasPrefix("#") ? nil : name
        }
    }

    /// The current account's name, if one is set.
    public func currentAccountName() -> String? {
        guard let text = FileDescriptorReader.readText(atPath: directories.currentAccountFile) else { return nil }
        let name = text.trimmingWhitespace()
        return name.isEmpty ? nil : name
    }
}

