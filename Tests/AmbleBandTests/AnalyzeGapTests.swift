@testable import AmbleCLI
import AmbleRecordings
import Testing

/// `amble analyze` on recordings with gaps and at rates it does not support (issue 31).
@Suite("amble analyze: gaps and sample rates")
struct AnalyzeGapTests {
    /// A steps recording: `rows` of (time, |a|) as magnitude-only rows.
    static func steps(_ times: [Double]) -> AccelerationRecording {
        AccelerationRecording(text: "time_s,x_g,y_g,z_g\n" + times.map { "\($0),1,0,0\n" }.joined(), name: "walk.csv")
    }

    @Test("steps: a gap is passed over in one step however long it is (the cadence read at most once a row)")
    func stepsGap() throws {
        let before = (0..<500).map { Double($0) / 25 }
        for gap in [10.0, 1e4, 1e7, 9.9e11] {
            let result = try StepAnalysis.run(recording: Self.steps(before + [19.96 + gap]))
            try #require(result.cadenceReadings <= before.count + 1, "gap \(gap): the cadence read \(result.cadenceReadings) times")
            #expect(result.durationSeconds == 19.96 + gap)
            #expect(result.steps == 0 && result.walkingSeconds == 0)
        }
    }

    @Test("steps: a median rate outside 12-125 Hz is refused, naming the file and what to do", arguments: [
        (0.2, "is 200 ms (5 Hz)"), (0.0001, "is 0.1 ms (10000 Hz)"), (40, "is 40000 ms (0.025 Hz)"),
    ])
    func rateRefused(intervalSeconds: Double, median: String) {
        let times = (0..<400).map { Double($0) * intervalSeconds }
        let error = #expect(throws: RecordingError.self) { try StepAnalysis.run(recording: Self.steps(times)) }
        let text = "\(error.map { "\($0)" } ?? "")"
        for part in ["walk.csv: ", median, "12-125 Hz", "resample", "time_s is in seconds"] {
            #expect(text.contains(part), "\(part) missing from: \(text)")
        }
    }

    @Test("steps: irregular timing, dropped samples and gaps are judged by the median interval")
    func irregularRatesAccepted() throws {
        // 12.5 Hz with every fifth sample dropped and a 1000 s gap; 125 Hz jittered by a third of
        // a period; 12.5 Hz with every tenth interval 2 ms (bursts of a FIFO read).
        let dropped = (0..<1000).filter { $0 % 5 != 4 }.map { (i: Int) -> Double in Double(i) * 0.08 + (i > 500 ? 1000 : 0) }
        let jittered = (0..<5000).map { (i: Int) -> Double in Double(i) / 125 + (i % 3 == 1 ? 0.0026 : 0) }
        var bursts: [Double] = [0]
        for i in 1..<1000 { bursts.append(bursts[i - 1] + (i % 10 == 0 ? 0.002 : 0.08)) }
        for times in [dropped, jittered, bursts] {
            #expect(throws: Never.self) { try StepAnalysis.run(recording: Self.steps(times)) }
        }
    }

    @Test("hr: a row far after the others: estimates bounded by the window, none with a value in the gap, the gap said")
    func heartRateFarOffRow() throws {
        // 40 s of pulse (rows up to 39.96 s), then one row a million seconds later.
        let recording = PPGRecording(text: CLIConventionsTests.pulse + "1000000,1000,,,\n", name: "gap.csv")
        var rows: [HeartRateAnalysis.Row] = []
        let analysis = try HeartRateAnalysis.run(recording: recording, windowSeconds: 8, stepSeconds: 2) { rows.append($0) }
        // 8 to 46 s: the window before each holds a sample.
        #expect(rows.count == 20, "estimates made: \(rows.count)")
        #expect(rows.contains { $0.estimate != nil })
        #expect(rows.filter { $0.timeSeconds > 40.5 }.allSatisfy { $0.estimate == nil })
        #expect(analysis.estimates == rows.count && analysis.gaps == 1)
        #expect(analysis.summary(file: "gap.csv").contains("gaps        1 longer than the window (999960.0 s without samples): no values there"))
    }

    @Test("a time beyond 1e12 s in size is refused with its line, in either kind of recording")
    func farTimesRefused() {
        let steps = AccelerationRecording(text: "time_s,x_g,y_g,z_g\n0,1,0,0\n1e15,1,0,0\n", name: "far.csv")
        let ppg = PPGRecording(text: "time_s,ppg1,x_g,y_g,z_g\n0,1,,,\n-1e300,1,,,\n", name: "far.csv")
        let reads: [() throws -> Void] = [{ try steps.forEachRow { _ in } }, { try ppg.forEachRow { _ in } }]
        for read in reads {
            let error = #expect(throws: RecordingError.self) { try read() }
            #expect(error?.line == 3 && error?.message.hasPrefix("time_s is ") == true && error?.message.contains("at most 1e12") == true)
        }
    }

    @Test("hr: the threshold is the recording's sensor class's (one channel at 22 Hz: 0.8; two at 25 Hz with 3 axes: 0.4; one at 25 Hz without acceleration: 0.8, said to fail the rule); --min-confidence overrides; a failing class is said")
    func heartRateThresholdOfTheSensorClass() throws {
        var slow = "time_s,ppg1,x_g,y_g,z_g\n"
        for i in 0..<880 { slow += "\(Double(i) / 22),\(i % 18 < 9 ? 1050 : 950),0.1,0.3,-0.9\n" }
        var twoChannels = "time_s,ppg1,ppg2,x_g,y_g,z_g\n"
        for i in 0..<1000 { twoChannels += "\(Double(i) / 25),\(i % 20 < 10 ? 1050 : 950),1000,0.1,0.3,-0.9\n" }
        let cases: [(text: String, given: Double?, expected: Double, fails: Bool)] = [
            (slow, nil, 0.8, false), (slow, 0.3, 0.3, false), (twoChannels, nil, 0.4, false), (CLIConventionsTests.pulse, nil, 0.8, true),
        ]
        for c in cases {
            let analysis = try HeartRateAnalysis.run(recording: PPGRecording(text: c.text, name: "r.csv"), windowSeconds: 8, stepSeconds: 2,
                                                     minimumConfidence: c.given)
            #expect(analysis.minimumConfidence == c.expected)
            #expect(analysis.summary(file: "r.csv").contains("meets the display rule at no confidence") == c.fails)
        }
    }
}
