/// A property that must hold for every input: what a fuzz target checks.
/// `check` returns a description of the violation, or nil when the property
/// holds; a crash (a trap, a sanitizer report) is a violation too.
/// The same code runs under libFuzzer (`make fuzz`) and over the saved
/// corpus and regression inputs in `make test` (FuzzRegressionTests).
protocol FuzzProperty {
    static func check(_ input: [UInt8]) -> String?
}

/// Splits one fuzz input into a few parts (at 0x00 bytes), so that a target
/// can take several arguments from one input and the fuzzer can still grow
/// each one independently.
func fuzzParts(_ input: [UInt8], count: Int) -> [[UInt8]] {
    var parts = input.split(separator: 0, maxSplits: count - 1, omittingEmptySubsequences: false).map(Array.init)
    while parts.count < count { parts.append([]) }
    return parts
}
