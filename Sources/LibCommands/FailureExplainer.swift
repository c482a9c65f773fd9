import LibNet

/// Explains each transport failure of one push once: the path probe and
/// NetworkManager are asked the first time a failure is seen, and the
/// writes it stopped, the push's message and its progress line all use
/// that one `FailureExplanation` (the kept writes are counted in later,
/// with `keeping`).
final class FailureExplainer {
    private let diagnose: (TransportFailure) -> FailureExplanation
    private var explained: [(failure: TransportFailure, explanation: FailureExplanation)] = []

    init(_ diagnose: @escaping (TransportFailure) -> FailureExplanation) {
        self.diagnose = diagnose
    }

    func explain(_ failure: TransportFailure) -> FailureExplanation {
        if let known = explained.first(where: { $0.failure == failure }) { return known.explanation }
        let explanation = diagnose(failure)
        // A push meets a handful of failures; the list never grows past a few.
        if explained.count >= 8 { explained.removeFirst() }
        explained.append((failure, explanation))
        return explanation
    }
}
