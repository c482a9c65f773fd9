import LibBase
import LibClient
import LibNet
import LibSync
import Synchronization

/// A transport that names this device to the server (`Lib-Device`), gives
/// a batch of writes the feed cursor this device has pulled up to
/// (`Lib-Feed-Since`), and keeps what the answers to batches and feed
/// reads say the device is behind by (`Lib-Feed-Behind`, docs/PROTOCOL.md).
/// Only a count for `lib status` and the prompt: nothing is stored from it
/// but that number.
struct FeedBehindWatch: HTTPTransport {
    /// What the answers said, the last one counting, and whether any
    /// request was answered with a success (a contact).
    final class Heard: Sendable {
        private let state = Mutex<(behind: Int?, answered: Bool)>((nil, false))
        var behind: Int? { state.withLock { $0.behind } }
        var answered: Bool { state.withLock { $0.answered } }
        fileprivate func hear(_ behind: Int?) {
            state.withLock { $0 = (behind ?? $0.behind, true) }
        }
    }

    let base: any HTTPTransport
    let device: String
    let cursor: String?
    let heard: Heard

    func send(_ request: HTTPRequest) throws(TransportFailure) -> HTTPResponse {
        var request = request
        request.headers.set("Lib-Device", device)
        let isBatch = request.method == "POST" && Self.path(of: request.url).hasSuffix("/v2/writes")
        if isBatch, let cursor { request.headers.set("Lib-Feed-Since", cursor) }
        let response = try base.send(request)
        guard (200...299).contains(response.status) else { return response }
        let isFeed = request.method == "GET" && Self.path(of: request.url).hasSuffix("/v1/changes")
        let said = (isBatch || isFeed) ? response.headers["Lib-Feed-Behind"].flatMap(Self.count) : nil
        heard.hear(said)
        return response
    }

    /// A count as the server writes it: up to 9 digits.
    private static func count(_ text: String) -> Int? {
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(text)
    }

    /// The URL's path, without its query.
    private static func path(of url: String) -> Substring {
        url.split(separator: "?", maxSplits: 1).first ?? ""
    }
}

extension AccountWorkspace {
    /// The server's API as `api(token:)`, watching what it says this device
    /// is behind by (`FeedBehindWatch`); `record` stores what was heard.
    func watchedAPI(token: String, store: AccountStore, timeout: Double? = nil) throws -> (api: ServerAPI, heard: FeedBehindWatch.Heard) {
        let plain = api(token: token, timeout: timeout)
        let heard = FeedBehindWatch.Heard()
        let watch = FeedBehindWatch(base: plain.transport, device: try store.contact.deviceName(),
                                    cursor: try store.mirror(of: Pull.collection.description).cursor(), heard: heard)
        return (ServerAPI(transport: watch, origin: plain.origin, token: token), heard)
    }

    /// Stores that the server answered now and what it said this device is
    /// behind by, and writes the prompt file again when that changed.
    func recordContact(_ heard: FeedBehindWatch.Heard, store: AccountStore) {
        guard heard.answered else { return }
        let before = try? store.contact.heard().behind
        try? store.contact.record(behind: heard.behind, at: context.now().secondsSince1970)
        if let behind = heard.behind, behind != before {
            PromptFile(self).rewrite((try? OutboxSummary(store)) ?? OutboxSummary())
        }
    }
}
