/// One way the server can be told to misbehave, for tests: see docs/FAULTS.md.
///
/// Spelling: `ACTION[,OPTION...]`, for example `drop-after-commit,first-per-key`,
/// `status=503,retry-after=2,times=3`, `delay=800,method=PUT`.
public struct FaultRule: Sendable, Equatable, CustomStringConvertible {
    public enum Action: Sendable, Equatable {
        /// Close the connection before applying a write (nothing committed, no answer).
        case dropBeforeWrite
        /// Commit the write, then close the connection without answering (a lost response).
        case dropAfterCommit
        /// Send only the first part of the answer, then close (connection lost mid-answer).
        case truncate
        /// Wait this many milliseconds before answering (inside the write's in-flight window).
        case delay(milliseconds: Int)
        /// Answer this status (e.g. 503) without doing anything.
        case status(Int)
        /// On a write: wait this many milliseconds after the change is written,
        /// before its transaction commits (a transaction held open).
        case holdBeforeCommit(milliseconds: Int)
        /// On a write: wait this many milliseconds after its transaction
        /// commits, before answering (a server killed between the two).
        case holdAfterCommit(milliseconds: Int)
    }

    public var action: Action
    /// Only requests with this method.
    public var method: String?
    /// Only requests whose path starts with this.
    public var pathPrefix: String?
    /// Fire at most this many times.
    public var times: Int?
    /// Fire only for the first request carrying each idempotency key.
    public var firstPerKey = false
    /// The Retry-After seconds sent with a `status` answer.
    public var retryAfter: Int?
    public let description: String

    public init(parsing text: String) throws(FaultRuleError) {
        description = text
        var parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty, !parts[0].isEmpty else { throw FaultRuleError(text: text, reason: "it is empty") }
        let head = parts.removeFirst()
        let (name, value) = Self.split(head)
        switch name {
        case "drop-before-write": action = .dropBeforeWrite
        case "drop-after-commit": action = .dropAfterCommit
        case "truncate": action = .truncate
        case "delay":
            guard let ms = value.flatMap(Int.init), ms >= 0 else { throw FaultRuleError(text: text, reason: "delay needs milliseconds, as in delay=500") }
            action = .delay(milliseconds: ms)
        case "status":
            guard let code = value.flatMap(Int.init), (100...599).contains(code) else {
                throw FaultRuleError(text: text, reason: "status needs a code, as in status=503")
            }
            action = .status(code)
        case "hold-before-commit":
            guard let ms = value.flatMap(Int.init), ms >= 0 else {
                throw FaultRuleError(text: text, reason: "hold-before-commit needs milliseconds, as in hold-before-commit=500")
            }
            action = .holdBeforeCommit(milliseconds: ms)
        case "hold-after-commit":
            guard let ms = value.flatMap(Int.init), ms >= 0 else {
                throw FaultRuleError(text: text, reason: "hold-after-commit needs milliseconds, as in hold-after-commit=500")
            }
            action = .holdAfterCommit(milliseconds: ms)
        default:
            throw FaultRuleError(text: text, reason: "unknown action '\(name)' (drop-before-write, drop-after-commit, truncate, delay=MS, status=CODE, hold-before-commit=MS, hold-after-commit=MS)")
        }
        for option in parts {
            let (key, value) = Self.split(option)
            switch (key, value) {
            case ("method", let v?): method = v.uppercased()
            case ("path", let v?): pathPrefix = v
            case ("times", let v?):
                guard let n = Int(v), n > 0 else { throw FaultRuleError(text: text, reason: "times needs a positive count") }
                times = n
            case ("retry-after", let v?):
                guard let n = Int(v), n >= 0 else { throw FaultRuleError(text: text, reason: "retry-after needs seconds") }
                retryAfter = n
            case ("first-per-key", nil): firstPerKey = true
            default: throw FaultRuleError(text: text, reason: "unknown option '\(option)' (method=, path=, times=, retry-after=, first-per-key)")
            }
        }
    }

    /// Rules from a list separated by newlines or semicolons.
    public static func parseList(_ text: String) throws(FaultRuleError) -> [FaultRule] {
        var rules: [FaultRule] = []
        for item in text.split(whereSeparator: { $0 == "\n" || $0 == ";" }) {
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { rules.append(try FaultRule(parsing: trimmed)) }
        }
        return rules
    }

    private static func split(_ s: String) -> (String, String?) {
        guard let eq = s.firstIndex(of: "=") else { return (s, nil) }
        return (String(s[..<eq]), String(s[s.index(after: eq)...]))
    }
}

public struct FaultRuleError: Error, Sendable, CustomStringConvertible {
    public let text: String
    public let reason: String
    public var description: String { "invalid fault '\(text)': \(reason)" }
}

import Foundation
