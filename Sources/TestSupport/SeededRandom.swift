import Foundation

/// A reproducible random source (SplitMix64) for generated test inputs: a
/// failing case names its seed, and the same seed makes the same inputs.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `choices`.
    public mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &self)] }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}

/// Runs `python3 -c SCRIPT` over `inputs`, one file each in a temporary
/// directory (the script gets the directory as argv[1] and reads the files
/// 0, 1, 2, …), and returns its standard output's lines: one program run for
/// all the inputs, so that a differential test costs a second, not minutes.
public func python3Lines(_ script: String, inputs: [[UInt8]]) throws -> [String] {
    let directory = try TemporaryDirectory("lib-differential")
    for (n, bytes) in inputs.enumerated() {
        try bytes.withUnsafeBufferPointer { buffer in
            try Data(buffer: buffer).write(to: directory.url.appendingPathComponent(String(n)))
        }
    }
    let result = try CommandRunner.run("/usr/bin/python3", ["-c", script, directory.path, String(inputs.count)], timeout: 120)
    guard result.status == 0 else { throw PythonError.failed("\(result)") }
    return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
}

public enum PythonError: Error {
    case failed(String)
}
