import LibCLI
import Testing
@testable import LibBase

@Test func libHomeIsTheSingleRoot() throws {
    let directories = try LibDirectories.resolve(environment: [
        "LIB_HOME": "/tmp/t", "HOME": "/home/u", "XDG_CONFIG_HOME": "/x/config",
    ])
    #expect(directories == LibDirectories(config: "/tmp/t/config", data: "/tmp/t/data", state: "/tmp/t/state"))
    #expect(directories.accountsFile == "/tmp/t/config/accounts")
    #expect(directories.currentAccountFile == "/tmp/t/config/current")
}

@Test func xdgDirectoriesWhenLibHomeIsUnsetOrEmpty() throws {
    for libHome in [nil, ""] as [String?] {
        var environment = ["HOME": "/home/u", "XDG_CONFIG_HOME": "/x/c", "XDG_DATA_HOME": "/x/d/", "XDG_STATE_HOME": "/x/s"]
        environment["LIB_HOME"] = libHome
        let directories = try LibDirectories.resolve(environment: environment)
        #expect(directories == LibDirectories(config: "/x/c/lib", data: "/x/d/lib", state: "/x/s/lib"))
    }
}

@Test func xdgDefaultsUnderHomeAndRelativeXDGPathsAreIgnored() throws {
    let directories = try LibDirectories.resolve(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "relative", "XDG_STATE_HOME": ""])
    #expect(directories == LibDirectories(
        config: "/home/u/.config/lib", data: "/home/u/.local/share/lib", state: "/home/u/.local/state/lib"))
}

@Test func homeFallsBackToThePasswordDatabase() throws {
    let directories = try LibDirectories.resolve(environment: [:])
    #expect(directories.config.hasSuffix("/.config/lib"))
    #expect(directories.config.hasPrefix("/"))
}
