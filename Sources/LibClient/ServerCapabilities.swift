import LibJSON
import LibNet

/// What a server speaks, from `GET /v2/capabilities` (docs/PROTOCOL.md): a
/// protocol-v2 server announces its batch limits; a v1 server has no such
/// route (404). Asked once and kept in the account's store (`stored`).
public struct ServerCapabilities: Sendable, Equatable {
    /// How many writes, and how many bytes of them, one `POST /v2/writes` may carry.
    public struct BatchLimits: Sendable, Equatable {
        public let maxItems: Int
        public let maxBytes: Int

        public init(maxItems: Int, maxBytes: Int) {
            self.maxItems = maxItems
            self.maxBytes = maxBytes
        }
    }

    /// nil: protocol v1 only, one request per write.
    public let batchWrites: BatchLimits?

    public init(batchWrites: BatchLimits?) { self.batchWrites = batchWrites }

    public static let v1Only = ServerCapabilities(batchWrites: nil)

    /// lib sends at most this many writes in one request, whatever a server
    /// announces: a batch's answer is read whole, and a lost one costs a
    /// resend of the batch (replayed by key).
    public static let largestBatch = 1_000

    /// As the account's store keeps it: "v1", or "v2 ITEMS BYTES".
    public var stored: String {
        guard let limits = batchWrites else { return "v1" }
        return "v2 \(limits.maxItems) \(limits.maxBytes)"
    }

    public init?(stored text: String) {
        let parts = text.split(separator: " ")
        if parts == ["v1"] { self = .v1Only; return }
        guard parts.count == 3, parts[0] == "v2", let items = Int(parts[1]), let bytes = Int(parts[2]), items > 0, bytes > 0
        else { return nil }
        self.init(batchWrites: BatchLimits(maxItems: items, maxBytes: bytes))
    }

    /// What the server says, or the failure that kept it from saying (then
    /// nothing is known: the caller sends nothing rather than guess, since a
    /// write sent once keeps the protocol it was sent with).
    public static func discover(_ api: ServerAPI) -> Result<ServerCapabilities, TransportFailure> {
        let response: HTTPResponse
        do {
            response = try api.send("GET", "/v2/capabilities")
        } catch {
            return .failure(api.explainedThroughProxy(error))
        }
        switch response.status {
        case 200:
            do {
                return .success(try LibraryServerProof.capabilities(response))
            } catch {
                return .failure(notTheServers(response, api))
            }
        case 404, 405:
            // A v1 server: the route is not there.
            guard LibraryServerProof.provesRouteMissing(response) else { return .failure(notTheServers(response, api)) }
            return .success(.v1Only)
        default:
            return .failure(api.failure(for: response) ?? notTheServers(response, api))
        }
    }

    private static func notTheServers(_ response: HTTPResponse, _ api: ServerAPI) -> TransportFailure {
        TransportFailure(kind: .notFromLibraryServer(seen: response.seen), endpoint: api.endpoint, proxy: response.proxy)
    }
}
