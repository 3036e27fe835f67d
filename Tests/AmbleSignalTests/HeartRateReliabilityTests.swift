import AmbleRecordings
import Testing

/// The reliability table `scripts/score-hr` prints per development set and variant, and the
/// rule that reads the display threshold from them (docs/heart-rate.md).
@Suite("Heart-rate reliability tables and the display threshold's rule")
struct HeartRateReliabilityTests {
    @Test("Values fall in the bin of their confidence; within 5 bpm and more than 10 off are counted; no value and below 0.3 are left out")
    func bins() {
        let windows: [(bpm: Double?, truthBPM: Double, confidence: Double)] = [
            (80, 80, 0.95), (85, 80, 1.0), (91, 80, 0.9),   // 0.9-1: within 5 (the edge 5 counts), within 5, 11 off
            (70, 80, 0.45), (90, 80, 0.499),                // 0.45-0.5: 10 off is not more than 10
            (nil, 80, 0.8), (80, 80, 0.29),                 // no value; below the first edge
        ]
        let table = HeartRateReliability(windows: windows)
        #expect(table.bins.count == HeartRateReliability.edges.count - 1)
        #expect(table.bins[8] == .init(count: 3, withinFive: 2, farOff: 1))
        #expect(table.bins[2] == .init(count: 2, withinFive: 0, farOff: 0))
        #expect(table.bins.map(\.count).reduce(0, +) == 5)
        #expect(HeartRateReliability.bin(of: 0.4) == 1 && HeartRateReliability.bin(of: 0.3999) == 0 && HeartRateReliability.bin(of: 1) == 8)
    }

    @Test("Shown from a threshold: the bins from it up, pooled")
    func farOffShareFromAThreshold() {
        var windows: [(bpm: Double?, truthBPM: Double, confidence: Double)] = []
        windows += Array(repeating: (100, 80, 0.47), count: 10)   // 0.45-0.5: all far off
        windows += Array(repeating: (81, 80, 0.65), count: 30)    // 0.6-0.7: none
        windows += Array(repeating: (95, 80, 0.85), count: 1)     // 0.8-0.9: one far off
        windows += Array(repeating: (80, 80, 0.95), count: 59)    // 0.9-1: none
        let table = HeartRateReliability(windows: windows)
        #expect(table.farOffShare(from: 0.45) == 11.0 / 100)
        #expect(table.farOffShare(from: 0.5) == 1.0 / 90)
        #expect(table.farOffShare(from: 0.9) == 0)
    }

    @Test("The rule: the lowest edge at which every table shows at most 3 % more than 10 off, every bin shown at least half within 5 bpm; none when no edge does")
    func displayThreshold() {
        func table(_ farOffAtHalf: Int) -> HeartRateReliability {
            var windows: [(bpm: Double?, truthBPM: Double, confidence: Double)] = Array(repeating: (80, 80, 0.52), count: 100)
            windows += Array(repeating: (100, 80, 0.52), count: farOffAtHalf)
            windows += Array(repeating: (100, 80, 0.42), count: 50)      // 0.4-0.45: all far off
            windows += Array(repeating: (80, 80, 0.75), count: 100)
            return HeartRateReliability(windows: windows)
        }
        #expect(HeartRateReliability.displayThreshold([table(0)]) == 0.45)
        #expect(HeartRateReliability.displayThreshold([table(0), table(6)]) == 0.45)  // 6 of 206: 2.9 %
        #expect(HeartRateReliability.displayThreshold([table(0), table(7)]) == 0.55)  // 7 of 207: 3.4 %
        let hopeless = HeartRateReliability(windows: [(120, 80, 0.95), (80, 80, 0.95)])
        #expect(HeartRateReliability.displayThreshold([table(0), hopeless]) == nil)
        // 0.45-0.5 mostly 6-10 bpm off: none far off, but not as likely as not within 5 bpm.
        let vague = HeartRateReliability(windows: Array(repeating: (88, 80, 0.47), count: 6) + Array(repeating: (80, 80, 0.47), count: 5)
                                             + Array(repeating: (80, 80, 0.9), count: 50))
        #expect(vague.farOffShare(from: 0.45) == 0 && !vague.meetsDisplayRule(from: 0.45) && vague.meetsDisplayRule(from: 0.5))
        #expect(HeartRateReliability.displayThreshold([table(0), vague]) == 0.5)
    }

    @Test("Where no edge meets the rule, the best edge is the lowest with the fewest far off on the worst table (kept and said, not withheld)")
    func bestEdgeWhenTheRuleFails() {
        // Worst table: shown from 0.3: 25 %; from 0.6: 5 of 60; from 0.8: 3 of 40; from 0.9: 1 of 20 (5 %).
        func table(farOffAt085: Int) -> HeartRateReliability {
            var windows: [(bpm: Double?, truthBPM: Double, confidence: Double)] = []
            windows += Array(repeating: (100, 80, 0.35), count: 20) + Array(repeating: (80, 80, 0.35), count: 20)
            windows += Array(repeating: (100, 80, 0.65), count: 2) + Array(repeating: (80, 80, 0.65), count: 18)
            windows += Array(repeating: (100, 80, 0.85), count: farOffAt085) + Array(repeating: (80, 80, 0.85), count: 20 - farOffAt085)
            windows += Array(repeating: (100, 80, 0.95), count: 1) + Array(repeating: (80, 80, 0.95), count: 19)
            return HeartRateReliability(windows: windows)
        }
        let clean = HeartRateReliability(windows: Array(repeating: (80, 80, 0.5), count: 10))
        #expect(HeartRateReliability.displayThreshold([clean, table(farOffAt085: 2)]) == nil)
        #expect(HeartRateReliability.bestEdge([clean, table(farOffAt085: 2)]) == 0.9)
        // A tie goes to the lowest edge: from 0.7 (0.7-0.8 empty) and 0.8 2 of 40, from 0.9 1 of 20.
        #expect(HeartRateReliability.displayThreshold([table(farOffAt085: 1)]) == nil)
        #expect(HeartRateReliability.bestEdge([table(farOffAt085: 1)]) == 0.7)
    }
}
