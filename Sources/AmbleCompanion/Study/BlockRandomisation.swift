import AmbleModel

/// Block randomisation, as a pure function: which arm the `sequence`-th participant of a
/// stratum is allocated to, from the arms' ratios, the block sizes, the study's seed and the
/// stratum's name. The server calls it at join time with the count of participants already
/// allocated in the stratum, so the allocation is concealed until then (only the seed, kept
/// on the server, says what comes next) and each one can be recomputed from the seed.
///
/// Each stratum's sequence is cut into blocks. A block's size is drawn from `blockSizes`
/// (each a multiple of the ratios' sum), and the block holds every arm `ratio × size / sum`
/// times in a random order (Fisher-Yates). So at the end of every block the arms are exactly
/// in ratio, and within a block no arm is further from its share than the block's size times
/// its share of the ratios. Varying the block size keeps the last allocations of a block from
/// being guessed. Every draw comes from `SplitMix64` seeded from the seed, the stratum (FNV-1a
/// of its UTF-8 bytes, the same in every process) and the block's index: no global randomness,
/// the same answer on every machine and every Swift release.
public enum BlockRandomisation {
    /// The arm (an index into `ratios`) of the participant at `sequence` (0-based, counted
    /// within `stratum`). `ratios`: each arm's whole weight, at least 1; `blockSizes`: at least
    /// one, each a positive multiple of the ratios' sum (as `StudyFile` checks them).
    public static func arm(ratios: [Int], blockSizes: [Int], seed: UInt64, stratum: String, sequence: Int) -> Int {
        precondition(!ratios.isEmpty && ratios.allSatisfy { $0 >= 1 }, "ratios must be at least 1")
        let sum = ratios.reduce(0, +)
        precondition(!blockSizes.isEmpty && blockSizes.allSatisfy { $0 > 0 && $0 % sum == 0 }, "block sizes must be multiples of the ratios' sum")
        precondition(sequence >= 0, "sequence counts from 0")
        let stratumKey = seed ^ fnv1a(stratum)
        var first = 0
        var block: UInt64 = 0
        while true {
            var generator = SplitMix64(seed: stratumKey &+ block &* 0x9E37_79B9_7F4A_7C15)
            let size = blockSizes[generator.next(below: blockSizes.count)]
            if sequence < first + size {
                return blockArms(ratios: ratios, size: size, generator: &generator)[sequence - first]
            }
            first += size
            block += 1
        }
    }

    /// One block's arms in their random order: arm `i` appears `ratios[i] × size / sum` times.
    static func blockArms(ratios: [Int], size: Int, generator: inout SplitMix64) -> [Int] {
        let repeats = size / ratios.reduce(0, +)
        var arms = ratios.enumerated().flatMap { arm, ratio in Array(repeating: arm, count: ratio * repeats) }
        for i in stride(from: arms.count - 1, to: 0, by: -1) {
            arms.swapAt(i, generator.next(below: i + 1))
        }
        return arms
    }

    /// 64-bit FNV-1a of the text's UTF-8 bytes (Swift's `Hasher` is seeded anew in every process).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
