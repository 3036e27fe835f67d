import AmbleRecordings
import Testing

struct RecordingFormatTests {
    func stepsError(_ text: String) -> RecordingError? {
        #expect(throws: RecordingError.self) { try AccelerationRecording(text: text, name: "walk.csv").forEachRow { _ in } }
    }

    @Test func readsAStepsRecording() throws {
        var rows: [AccelerationRow] = []
        try AccelerationRecording(text: "time_s,x_g,y_g,z_g\r\n0.00,0.1,-0.2,0.98\r\n\r\n0.08, 0.12 ,-0.21,0.97\n", name: "w.csv").forEachRow { rows.append($0) }
        #expect(rows == [AccelerationRow(timeSeconds: 0, xG: 0.1, yG: -0.2, zG: 0.98), AccelerationRow(timeSeconds: 0.08, xG: 0.12, yG: -0.21, zG: 0.97)])
    }

    @Test(arguments: [
        ("time,x,y,z\n0,1,0,0\n", 1, "header"),
        ("time_s,x_g,y_g,z_g\n0,1,0,0\n0.1,1,zero,0\n", 3, "y_g is \"zero\""),
        ("time_s,x_g,y_g,z_g\n0,1,0,0\n0.1,1,0\n", 3, "expected 4 comma-separated cells, found 3"),
        ("time_s,x_g,y_g,z_g\n0.5,1,0,0\n0.4,1,0,0\n", 3, "goes backwards"),
        ("time_s,x_g,y_g,z_g\n0,1,0,nan\n", 2, "z_g is \"nan\""),
    ])
    func namesTheLineOfBadInput(text: String, line: Int, message: String) {
        let error = stepsError(text)
        #expect(error?.line == line)
        #expect(error?.description.hasPrefix("walk.csv:\(line): ") == true)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    }

    @Test func aBinaryFileIsNotEchoedToTheTerminal() {
        let binary = String(decoding: (0 ..< 200_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }, as: UTF8.self)
        let error = stepsError(binary)
        #expect(error?.line == 1)
        let message = error?.message ?? ""
        #expect(message.count < 200, "\(message.count) characters")
        #expect(!message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x1B }, "no control bytes reach the terminal")
    }

    @Test func emptyAndHeaderOnlyFilesAreErrors() {
        #expect(stepsError("")?.message.contains("empty") == true)
        #expect(stepsError("time_s,x_g,y_g,z_g\n")?.message.contains("no samples") == true)
    }

    @Test func readsHeartRateRecordingsWithOneToThreeChannels() throws {
        for channels in 1...3 {
            let names = (1...channels).map { "ppg\($0)" }.joined(separator: ",")
            let values = (1...channels).map { "\($0 * 100)" }.joined(separator: ",")
            let text = "time_s,\(names),x_g,y_g,z_g\n0,\(values),0.1,0.2,0.9\n0.008,\(values),,,\n"
            var rows: [PPGRow] = []
            try PPGRecording(text: text, name: "hr.csv").forEachRow { rows.append($0) }
            #expect(rows.count == 2)
            #expect(rows[0].ppg.count == channels)
            #expect(rows[0].acceleration?.zG == 0.9)
            #expect(rows[1].acceleration == nil, "empty acceleration cells mean none")
            #expect(try PPGRecording(text: text, name: "hr.csv").channelCount() == channels)
        }
    }

    @Test func heartRateErrorsNameTheColumn() {
        let error = #expect(throws: RecordingError.self) {
            try PPGRecording(text: "time_s,ppg1,ppg2,x_g,y_g,z_g\n0,1,2,0,0,1\n0.01,1,,0,0,1\n", name: "hr.csv").forEachRow { _ in }
        }
        #expect(error?.line == 3)
        #expect(error?.message.contains("ppg2 is an empty cell") == true)
    }

    @Test func missingFileIsExplained() {
        let error = #expect(throws: RecordingError.self) { try AccelerationRecording(path: "/nonexistent/walk.csv").forEachRow { _ in } }
        #expect(error?.description.contains("/nonexistent/walk.csv") == true)
    }
}

/// `labels.csv` of a folder of steps recordings, and scoring counts as
/// `../shared/tools/score.py steps` does.
struct StepLabelTests {
    @Test func readsLabels() throws {
        let labels = try StepLabel.read(text: "file,true_steps,kind,duration_s\nwalk.csv,100,walking,60.5\n\ndesk.csv,0,non-walking,120\n",
                                        name: "labels.csv")
        #expect(labels == [
            StepLabel(file: "walk.csv", trueSteps: 100, kind: .walking, durationSeconds: 60.5),
            StepLabel(file: "desk.csv", trueSteps: 0, kind: .nonWalking, durationSeconds: 120),
        ])
    }

    @Test(arguments: [
        ("file,steps,kind,duration_s\nw.csv,1,walking,1\n", 1, "header"),
        ("file,true_steps,kind,duration_s\nw.csv,ten,walking,60\n", 2, "true_steps is \"ten\""),
        ("file,true_steps,kind,duration_s\nw.csv,-3,walking,60\n", 2, "true_steps is \"-3\""),
        ("file,true_steps,kind,duration_s\nw.csv,10,running,60\n", 2, "kind is \"running\"; expected walking, mixed or non-walking"),
        ("file,true_steps,kind,duration_s\nw.csv,0,walking,60\n", 2, "true_steps is 0 for a walking recording"),
        ("file,true_steps,kind,duration_s\nw.csv,10,walking,0\n", 2, "duration_s is 0.0"),
        ("file,true_steps,kind,duration_s\n,10,walking,60\n", 2, "file is empty"),
        ("file,true_steps,kind,duration_s\n", nil, "no recordings"),
    ] as [(String, Int?, String)])
    func namesTheLineOfBadLabels(text: String, line: Int?, message: String) {
        let error = #expect(throws: RecordingError.self) { try StepLabel.read(text: text, name: "labels.csv") }
        #expect(error?.line == line)
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "no error")")
    }

    @Test func scoresAsTheScorerDoes() {
        var score = StepScore()
        #expect(score.walkingMAPEPercent == nil && score.falseStepsPerHour == nil)
        score.add(counted: 110, for: StepLabel(file: "a", trueSteps: 100, kind: .walking, durationSeconds: 60))
        score.add(counted: 45, for: StepLabel(file: "b", trueSteps: 50, kind: .walking, durationSeconds: 60))
        score.add(counted: 80, for: StepLabel(file: "m", trueSteps: 100, kind: .mixed, durationSeconds: 60))
        // Non-walking: only steps beyond the real ones are false; fewer are not credited.
        score.add(counted: 30, for: StepLabel(file: "d", trueSteps: 18, kind: .nonWalking, durationSeconds: 1800))
        score.add(counted: 0, for: StepLabel(file: "e", trueSteps: 6, kind: .nonWalking, durationSeconds: 1800))
        #expect(score.walkingMAPEPercent == 10)
        #expect(score.mixedMAPEPercent == 20)
        #expect(score.falseSteps == 12)
        #expect(score.falseStepsPerHour == 12)
    }
}
