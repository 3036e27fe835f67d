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
}
