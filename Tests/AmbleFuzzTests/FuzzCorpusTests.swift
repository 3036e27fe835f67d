import AmbleFuzzTargets
import Foundation
import Testing

/// The fuzzing corpus kept in `fuzz/` (seeds, and every input that once crashed a parser)
/// replayed through the same targets libFuzzer drives: a crash fixed stays fixed.
struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fuzz").standardized

    static func inputs(_ target: FuzzTarget) -> [URL] {
        ["corpus", "crashes"].flatMap { kind in
            let folder = root.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
        }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everyKeptInputRunsWithoutACrash(target: FuzzTarget) throws {
        let inputs = Self.inputs(target)
        #expect(!inputs.isEmpty, "fuzz/corpus/\(target.rawValue) has seeds")
        for url in inputs {
            target.run([UInt8](try Data(contentsOf: url)))
        }
    }

    /// Inputs no parser should ever trap on, whatever the target.
    @Test(arguments: FuzzTarget.allCases)
    func edgeInputs(target: FuzzTarget) {
        for bytes: [UInt8] in [[], [0], [0xFF], Array(repeating: 0xFF, count: 70_000), Array("AM".utf8) + [2, 3, 0xFF, 0xFF, 0xFF, 0xFF],
                               Array(repeating: 0x80, count: 5000), Array("time_s,x_g,y_g,z_g\n".utf8) + Array(repeating: 0x2C, count: 9000)] {
            target.run(bytes)
        }
    }
}
