@testable import AmbleCompanion
import AmbleModel
import PropertyBased
import Testing

/// Block randomisation (`BlockRandomisation`): deterministic, balanced within every block, per
/// stratum, and reproducible from the seed alone.
struct BlockRandomisationTests {
    /// Allocations as the server makes them: participants of several strata join interleaved;
    /// each gets the next sequence number of its stratum.
    static func allocate(ratios: [Int], blockSizes: [Int], seed: UInt64, strataOfJoins: [Int]) -> [Int: [Int]] {
        var byStratum: [Int: [Int]] = [:]
        for stratum in strataOfJoins {
            let sequence = byStratum[stratum, default: []].count
            byStratum[stratum, default: []].append(BlockRandomisation.arm(ratios: ratios, blockSizes: blockSizes, seed: seed,
                                                                          stratum: "site=\(stratum)", sequence: sequence))
        }
        return byStratum
    }

    /// Ratios of 2 to 4 arms (1 to 3 each), block sizes 1 to 3 multiples of their sum, a seed,
    /// and the strata (0 to 2) of up to 200 joins.
    static let designs = zip(Gen.int(in: 1 ... 3).array(of: 2 ... 4), Gen.int(in: 1 ... 4).array(of: 1 ... 3),
                             Gen.uint64(in: 0 ... .max), Gen.int(in: 0 ... 2).array(of: 1 ... 200))

    @Test func everyPrefixOfEveryStratumIsWithinOneBlockOfTheRatio() async {
        await propertyCheck(count: 300, input: Self.designs) { ratios, multiples, seed, joins in
            let sum = ratios.reduce(0, +)
            let sizes = Array(Set(multiples.map { $0 * sum })).sorted()
            let largest = sizes.last!
            for (stratum, arms) in Self.allocate(ratios: ratios, blockSizes: sizes, seed: seed, strataOfJoins: joins) {
                var counts = [Int](repeating: 0, count: ratios.count)
                for (n, arm) in arms.enumerated() {
                    counts[arm] += 1
                    let allocated = n + 1
                    for (a, ratio) in ratios.enumerated() {
                        // |count − n·r/R| ≤ (largest block)·r/R, in whole numbers.
                        #expect(abs(counts[a] * sum - allocated * ratio) <= largest * ratio,
                                "stratum \(stratum), after \(allocated): \(counts) for ratios \(ratios), blocks \(sizes)")
                    }
                    // A prefix of whole blocks of one size is exactly in ratio when blocks all have that size.
                    if sizes.count == 1, allocated % largest == 0 {
                        #expect(zip(counts, ratios).allSatisfy { $0 * sum == allocated * $1 }, "\(counts) after \(allocated)")
                    }
                }
            }
        }
    }

    @Test func theSameInputsGiveTheSameArmAndSeedsAndStrataDiffer() {
        let arms = { (seed: UInt64, stratum: String) in
            (0 ..< 60).map { BlockRandomisation.arm(ratios: [1, 1], blockSizes: [4, 6], seed: seed, stratum: stratum, sequence: $0) }
        }
        #expect(arms(7, "") == arms(7, ""))
        #expect(arms(7, "") != arms(8, ""), "another seed, another sequence")
        #expect(arms(7, "sex=f") != arms(7, "sex=m"), "each stratum has its own sequence")
        // Asking out of order gives what asking in order gives (the server asks one at a time).
        #expect((0 ..< 60).reversed().map { BlockRandomisation.arm(ratios: [1, 1], blockSizes: [4, 6], seed: 7, stratum: "", sequence: $0) }
                == arms(7, "").reversed())
    }

    /// The allocation of a study must be recomputable from its seed on any machine and any later
    /// release: these are the first 20 of seed 2026, two arms 1:1, blocks of 4 and 6, no
    /// strata. A change here changes every running study's allocation.
    @Test func aSeedsAllocationIsPinned() {
        let arms = (0 ..< 20).map { BlockRandomisation.arm(ratios: [1, 1], blockSizes: [4, 6], seed: 2026, stratum: "", sequence: $0) }
        #expect(arms == Self.pinned2026, "\(arms)")
    }

    static let pinned2026 = [0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0]

    @Test func splitMix64MatchesItsReferenceOutput() {
        // Vigna's splitmix64.c seeded with 1234567.
        var generator = SplitMix64(seed: 1_234_567)
        #expect((0 ..< 3).map { _ in generator.next() } == [6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423])
    }

    @Test func boundedDrawsCoverTheRangeEvenly() {
        var generator = SplitMix64(seed: 42)
        var counts = [Int](repeating: 0, count: 6)
        for _ in 0 ..< 60_000 { counts[generator.next(below: 6)] += 1 }
        // 10,000 expected each; 5 standard deviations is ±456.
        #expect(counts.allSatisfy { abs($0 - 10_000) < 460 }, "\(counts)")
        #expect(generator.next(below: 1) == 0)
    }
}
