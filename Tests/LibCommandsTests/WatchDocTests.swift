import Foundation
import Glibc
import LibBase
import Testing
@testable import LibCommands

/// docs/WATCH.md describes the watcher that runs (issue 49: it named four
/// descriptors and two signals while the watcher polled six and stopped on
/// three, and said nothing of the waiting change feed).
@Suite struct WatchDocTests {
    let text: String

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        text = try String(contentsOf: root.appendingPathComponent("docs/WATCH.md"), encoding: .utf8)
    }

    /// The rows of the table of what wakes the watcher.
    var rows: [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("| ") && !$0.hasPrefix("| descriptor") && !$0.hasPrefix("| ---") }
    }

    /// The words in the table's first column that stand for each event the
    /// watcher's poll set can report. A new event does not compile here
    /// until it has a row.
    func rowWords(_ event: WatchEvents.Event) -> String {
        switch event {
        case .stop: "signalfd"
        case .directoryChanged, .directoryRemoved: "inotify: each account's directory"
        case .routesChanged: "rtnetlink"
        case .networkManagerChanged: "NetworkManager's change pipe"
        case .feedAnswered: "the change feed's pipe"
        }
    }

    @Test func everyEventTheWatcherPollsForHasARow() {
        let events: [WatchEvents.Event] = [.stop, .directoryChanged(1), .directoryRemoved(1), .routesChanged, .networkManagerChanged, .feedAnswered]
        for event in events {
            #expect(rows.contains { $0.hasPrefix("| \(rowWords(event))") }, "no row for \(event)")
        }
        #expect(rows.contains { $0.hasPrefix("| inotify: the config directory") }, "the account list's watch")
        #expect(rows.count == 6, "\(rows)")
    }

    @Test func theSignalsThatStopItAreTheOnesNamed() {
        let names: [Int32: String] = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"]
        let named = StopSignals.numbers.compactMap { names[$0] }
        #expect(named.count == StopSignals.numbers.count)
        let signalRow = rows.first { $0.hasPrefix("| signalfd") } ?? ""
        for name in named {
            #expect(signalRow.contains(name), "\(name) missing from \(signalRow)")
            #expect(text.contains("until SIGTERM, SIGINT or SIGHUP"))
        }
    }

    @Test func theTimesItGivesAreTheWatchersOwn() {
        #expect(rows.contains { $0.contains("push \(PushWatch.coalescing) s later") })
        #expect(rows.contains { $0.contains("probe \(PushWatch.routeSettling) s later") })
        #expect(text.contains("wait=\(FeedWaiter.preferredWait)&limit=1"))
        #expect(text.contains("\(Int(PushWatch.defaultPullInterval)) (15 minutes) by\ndefault") || text.contains("\(Int(PushWatch.defaultPullInterval)) (15 minutes) by default"))
        #expect(text.contains("watcher tries again after \(Int(PushWatch.networkManagerDoubt)) s"))
        #expect(text.contains(PushWatch.pullIntervalVariable))
    }
}
