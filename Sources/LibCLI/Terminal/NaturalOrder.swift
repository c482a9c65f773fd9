/// Orders strings as people count: `b-1, b-2, b-10`, not `b-1, b-10, b-2`.
/// Runs of ASCII digits compare by value (then by length, so `b-01` follows
/// `b-1`); everything else compares by Unicode scalar.
public enum NaturalOrder {
    public static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    public static func compare(_ a: String, _ b: String) -> Int {
        var left = Array(a.unicodeScalars)[...]
        var right = Array(b.unicodeScalars)[...]
        while let l = left.first, let r = right.first {
            if isDigit(l) && isDigit(r) {
                let leftRun = left.prefix(while: isDigit)
                let rightRun = right.prefix(while: isDigit)
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
                let leftValue = leftRun.drop { $0 == "0" }
                let rightValue = rightRun.drop { $0 == "0" }
                if leftValue.count != rightValue.count { return leftValue.count - rightValue.count }
                for (x, y) in zip(leftValue, rightValue) where x != y { return x.value < y.value ? -1 : 1 }
                if leftRun.count != rightRun.count { return leftRun.count - rightRun.count }
            } else {
                if l != r { return l.value < r.value ? -1 : 1 }
                left = left.dropFirst()
                right = right.dropFirst()
            }
        }
        return left.count - right.count
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x30 && scalar.value <= 0x39
    }
}

extension Sequence {
    /// The elements sorted naturally by a string key (`b-2` before `b-10`).
    public func sortedNaturally(by key: (Element) -> String) -> [Element] {
        sorted { NaturalOrder.areInIncreasingOrder(key($0), key($1)) }
    }
}
