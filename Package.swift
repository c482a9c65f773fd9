// swift-tools-version:6.0
// lib: an offline-first, multi-account command-line client for a library
// service, and lib-server, the reference server it talks to.
// No outside Swift packages: only the toolchain and Debian's C libraries.
import Foundation
import PackageDescription

// Compiler flags for every module `lib` runs. Both are frontend options
// that the Swift driver does not document: a toolchain may drop or rename
// either, so each is here once, with what it bought, and
// LIB_WITHOUT_FRONTEND_FLAGS=1 builds without both (the code needs
// neither; `make test` passes either way, only slower start-ups).
let frontendFlags: [String: [String]] = [
    // Reference concrete generic types through their metadata accessors
    // instead of mangled names. The runtime otherwise demangles each such
    // name on first use and, for a type with requirements (a Dictionary's
    // Hashable key), scans every protocol conformance in the executable.
    // Measured under callgrind (issue 14, a5ee528): `lib edit` 2.77 M
    // instructions without it, 2.47 M with it; `lib --version` 11 k fewer.
    "mangled-name accessors": ["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
    // Each function in its own section, so that gold can lay out the ones
    // lib's start-up runs side by side (Sources/lib/startup-order.txt):
    // `lib --version` faults in 97 pages with it, 108 without (issue 14,
    // 7ad1f65; a static Swift hello world takes 94).
    "function sections": ["-Xfrontend", "-function-sections"],
]
let withoutFrontendFlags = Context.environment["LIB_WITHOUT_FRONTEND_FLAGS"] == "1"
let startUp: [SwiftSetting] = withoutFrontendFlags ? [] : [.unsafeFlags(frontendFlags.keys.sorted().flatMap { frontendFlags[$0]! })]

// lib's start-up functions in the order scripts/startup-order.sh recorded
// them. --section-ordering-file is gold's option (GNU ld before 2.43 and
// lld do not have it; lld's --symbol-ordering-file takes another format),
// so gold is named here rather than left to the toolchain's default; the
// fuzz build, which links with lld, does not use the list.
// EndToEndTests.StartupOrderTests fails when the list has gone stale.
let startupOrder: [LinkerSetting] = withoutFrontendFlags ? [] : [.unsafeFlags([
    "-use-ld=gold", "-Xlinker", "--section-ordering-file=\(Context.packageDirectory)/Sources/lib/startup-order.txt",
])]

// GLib's, GIO's and libsecret's header directories, for the C shims that
// reach those libraries through dlopen: their types and constants come
// from the real headers (libsecret-1-dev), their functions from dlsym, and
// nothing is linked (`lib status` must not load them).
let glibHeaders: [CSetting] = {
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
    pkgConfig.arguments = ["--cflags-only-I", "libsecret-1", "gio-2.0"]
    let output = Pipe()
    pkgConfig.standardOutput = output
    do { try pkgConfig.run() } catch { fatalError("pkg-config is missing: run scripts/install-deps.sh (\(error))") }
    let flags = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    pkgConfig.waitUntilExit()
    guard pkgConfig.terminationStatus == 0 else {
        fatalError("pkg-config finds no libsecret-1 or gio-2.0: install libsecret-1-dev (scripts/install-deps.sh)")
    }
    return [.unsafeFlags(flags.split(whereSeparator: \.isWhitespace).map(String.init))]
}()

let package = Package(
    name: "lib",
    products: [
        .executable(name: "lib", targets: ["lib"]),
        .executable(name: "lib-online", targets: ["lib-online"]),
        .executable(name: "lib-server", targets: ["lib-server"]),
    ],
    targets: [
        // C libraries from Debian.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CSodium", path: "Sources/CSodium"),
        // SHA-256 on the processor's SHA extensions, for lib-server's per-request digests.
        .target(name: "CSHA256", path: "Sources/CSHA256"),
        // libpq, linked into lib-server only (lib never loads it).
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres"),
        // The one dlopen loader of the three shims below.
        .target(name: "CDynamicLibrary", path: "Sources/CDynamicLibrary", linkerSettings: [.linkedLibrary("dl")]),
        // libcurl, loaded with dlopen on first use so that start-up stays lean.
        .target(name: "CCurl", dependencies: ["CDynamicLibrary"], path: "Sources/CCurl"),
        // libsecret (and GLib under it), also loaded with dlopen on first use.
        .target(name: "CSecret", dependencies: ["CDynamicLibrary"], path: "Sources/CSecret", cSettings: glibHeaders),
        // The kernel's keyrings (add_key, request_key, keyctl): the token cache in front of the Secret Service.
        .target(name: "CKernelKeyring", path: "Sources/CKernelKeyring"),
        // signalfd for `push --watch`'s stop signals (not in Swift's Glibc module).
        .target(name: "CSignals", path: "Sources/CSignals"),
        .target(name: "CArgumentVector", path: "Sources/CArgumentVector"),
        // epoll and eventfd for lib-server's event loops.
        .target(name: "CEventLoop", path: "Sources/CEventLoop"),
        // NetworkManager's properties over GDBus (GIO, which libsecret brings), loaded after a failure.
        .target(name: "CNetworkManager", dependencies: ["CDynamicLibrary"], path: "Sources/CNetworkManager",
                cSettings: glibHeaders),

        // Shared by client and server.
        // The base every client module stands on: the one server-address
        // type, exit codes, the clocks, text trimming, lib's directories.
        .target(name: "LibBase", dependencies: ["LibJSON"], swiftSettings: startUp),
        .target(name: "LibJSON", swiftSettings: startUp),
        .target(name: "LibStore", dependencies: ["CSQLite"], swiftSettings: startUp),
        // The book's JSON Schema and the validator both sides check books with.
        .target(name: "LibBookSchema", dependencies: ["LibJSON"], swiftSettings: startUp),
        // The HTTP vocabulary: headers, entity tags, preconditions, Retry-After, dates.
        .target(name: "LibHTTP", dependencies: ["LibBase"], swiftSettings: startUp),

        // The reference server.
        .target(name: "LibHTTPServer", dependencies: ["CEventLoop", "LibBase", "LibHTTP", "LibJSON"]),
        .target(name: "LibServer", dependencies: ["LibBase", "LibJSON", "LibBookSchema", "LibStore", "LibHTTPServer", "LibHTTP", "CSQLite", "CSodium", "CSHA256", "CPostgres", "CSignals"]),
        .executableTarget(name: "lib-server", dependencies: ["LibServer"]),

        // The client.
        .target(name: "LibNet", dependencies: ["CCurl", "CNetworkManager", "LibBase", "LibHTTP"], swiftSettings: startUp),
        // Protocol v1 as lib speaks it: requests, the proof an answer is the
        // library server's, reads and writes with typed outcomes, the book
        // rules and schema. Knows nothing of commands or accounts.
        .target(name: "LibClient", dependencies: ["LibBase", "LibBookSchema", "LibHTTP", "LibJSON", "LibNet"], swiftSettings: startUp),
        // A developer's diagnostic: one request or probe, classified and explained.
        .executableTarget(name: "lib-net-check", dependencies: ["LibBase", "LibNet"]),
        .target(name: "LibAccounts", dependencies: ["LibBase"], swiftSettings: startUp),
        .target(name: "LibKeyring", dependencies: ["CSecret", "CKernelKeyring", "LibBase"], swiftSettings: startUp),
        // Developer tool: one keyring call per process, for the keyring tests and benchmarks.
        .executableTarget(name: "lib-keyring-check", dependencies: ["LibKeyring", "CKernelKeyring"]),
        .target(name: "LibSync", dependencies: ["LibBase", "LibStore", "LibJSON"], swiftSettings: startUp),
        .target(name: "LibCLI", dependencies: ["LibBase", "LibJSON"], swiftSettings: startUp),
        .target(name: "LibCommands", dependencies: ["CSignals", "LibBase", "LibCLI", "LibClient", "LibNet", "LibKeyring", "LibSync", "LibAccounts", "LibJSON", "LibBookSchema", "LibStore"],
                swiftSettings: startUp),

        // lib: a static executable, so that every command starts as fast as
        // a C program (no dynamic loader at all). It runs what the device
        // can do alone and execs lib-online, the dynamic program with the
        // network and the keyring, for the rest (LibCommands.OnlineHelper).
        // Its start-up functions are laid out together, in the order
        // scripts/startup-order.sh recorded them (fewer pages to fault in).
        // CArgumentVector: argv without the runtime's /proc/self/maps scan.
        .executableTarget(name: "lib", dependencies: ["LibCommands", "CArgumentVector"], exclude: ["startup-order.txt"], swiftSettings: startUp,
                          linkerSettings: [.unsafeFlags(["-static-executable"])] + startupOrder),
        .executableTarget(name: "lib-online", dependencies: ["LibCommands"], swiftSettings: startUp),

        // Tests.
        .target(name: "TestSupport", path: "Sources/TestSupport"),
        .testTarget(name: "LibJSONTests", dependencies: ["LibJSON", "TestSupport"]),
        .testTarget(name: "LibBookSchemaTests", dependencies: ["LibBookSchema", "LibJSON", "TestSupport"]),
        .testTarget(name: "LibStoreTests", dependencies: ["LibStore", "TestSupport"]),
        .testTarget(name: "LibHTTPTests", dependencies: ["LibHTTP"]),
        .testTarget(name: "LibHTTPServerTests", dependencies: ["LibHTTPServer", "TestSupport"]),
        .testTarget(name: "LibServerTests", dependencies: ["LibServer", "LibHTTPServer", "LibHTTP", "LibStore", "LibJSON", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "LibCLITests", dependencies: ["LibAccounts", "LibBase", "LibCLI", "LibCommands", "LibJSON", "TestSupport"]),
        .testTarget(name: "LibNetTests", dependencies: ["LibBase", "LibNet", "TestSupport"]),
        .testTarget(name: "LibKeyringTests", dependencies: ["LibKeyring", "CSecret", "TestSupport"]),
        .testTarget(name: "LibSyncTests", dependencies: ["LibBase", "LibSync", "LibStore", "LibJSON", "TestSupport"], exclude: ["Fixtures"]),
        // Every verb run in-process, argv to exit code, against a stub server
        // behind the transport seam, the in-memory keyring and a fixed clock.
        .testTarget(name: "LibCommandsTests", dependencies: [
            "LibCommands", "LibCLI", "LibClient", "LibKeyring", "LibNet", "LibSync", "LibJSON", "LibBase", "LibBookSchema", "TestSupport",
        ]),
        .testTarget(name: "LibAccountsTests", dependencies: ["LibAccounts", "LibBase", "TestSupport"]),
        // The protocol client's reading of answers, without a network.
        .testTarget(name: "LibClientTests", dependencies: ["LibClient", "LibNet", "LibHTTP", "LibJSON", "LibBase"]),
        .testTarget(name: "EndToEndTests", dependencies: ["LibJSON", "TestSupport"]),
        // The fuzz targets' properties (Tests/Fuzz/Properties, also built by
        // scripts/build-fuzz-target.sh), replayed over the saved inputs.
        .testTarget(
            name: "FuzzRegressionTests",
            dependencies: ["LibBase", "LibJSON", "LibHTTP", "LibHTTPServer", "LibNet", "LibCLI", "LibClient", "LibCommands", "LibSync", "LibAccounts"],
            path: "Tests/Fuzz", exclude: ["Corpus", "Regressions", "Dictionaries", "README.md"]),
    ]
)
