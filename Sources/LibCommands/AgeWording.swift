/// How long ago something happened, in the words people use: "just now",
/// "5 minutes ago", "3 hours ago", "yesterday", "4 days ago", "2 months ago".
public enum AgeWording {
    public static func describe(seconds: Double) -> String {
        let s = max(0, seconds)
        switch s {
        case ..<45: return "just now"
        case ..<90: return "a minute ago"
        case ..<(45 * 60): return "\(Int((s / 60).rounded())) minutes ago"
        case ..<(90 * 60): return "an hour ago"
        case ..<(22 * 3600): return "\(Int((s / 3600).rounded())) hours ago"
        case ..<(36 * 3600): return "yesterday"
        case ..<(26 * 86400): return "\(Int((s / 86400).rounded())) days ago"
        case ..<(45 * 86400): return "a month ago"
        case ..<(320 * 86400): return "\(Int((s / (30 * 86400)).rounded())) months ago"
        case ..<(548 * 86400): return "a year ago"
        default: return "\(Int((s / (365 * 86400)).rounded())) years ago"
        }
    }

    /// How long something lasts: "14 min 59 s", "3 days", "45 s".
    public static func duration(_ seconds: Int) -> String {
        if seconds >= 86_400, seconds % 3600 == 0 {
            let days = seconds / 86_400, hours = (seconds % 86_400) / 3600
            return (days == 1 ? "1 day" : "\(days) days") + (hours > 0 ? " \(hours) h" : "")
        }
        if seconds >= 3600 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        if seconds >= 60 { return "\(seconds / 60) min" + (seconds % 60 > 0 ? " \(seconds % 60) s" : "") }
        return "\(seconds) s"
    }
}
