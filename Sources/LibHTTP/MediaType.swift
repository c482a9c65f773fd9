/// The media types lib and lib-server speak, and the one reading of a
/// `Content-Type` field both sides use.
public enum MediaType {
    public static let json = "application/json"
    /// RFC 9457: the body of every error answer of the library server's.
    public static let problemJSON = "application/problem+json"
    public static let schemaJSON = "application/schema+json"

    /// The media type of a `Content-Type` value: lowercased, without parameters or spaces.
    public static func of(contentType value: String) -> String {
        let media = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return media.trimmingSpacesAndTabs().lowercased()
    }

    /// JSON of any kind: `application/json` or a `+json` type.
    public static func isJSON(_ mediaType: String?) -> Bool {
        guard let mediaType else { return false }
        return mediaType == json || mediaType.hasSuffix("+json")
    }
}
