import AmbleRecordings
import AmbleSimulation
import Testing

/// `RecordedDays` (scripts/make-day) on synthetic recordings of known cadence: a bout's truth
/// is its walk's rate over the active span times its length, whole recordings keep their
/// labels, and the same seed makes the same day.
@Suite("Days made from recordings")
struct RecordedDaysTests {
    static func source(_ file: String, _ segments: [SyntheticActivities.Segment], isWalk: Bool, seed: UInt64, steps: Int? = nil) -> RecordedDays.Source {
        let recording = SyntheticActivities.render(segments, sampling: .init(rateHz: 25, jitterFraction: 0.05), seed: seed)
        return RecordedDays.Source(file: file, trueSteps: steps ?? (isWalk ? recording.trueSteps : 0), isWalk: isWalk, rows: recording.rows)
    }

    static let sources = [
        source("pebble__walk_a.csv", [.still(seconds: 3), .walking(cadenceStepsPerMinute: 100, seconds: 60), .still(seconds: 3)], isWalk: true, seed: 1),
        source("pebble__walk_b.csv", [.still(seconds: 3), .walking(cadenceStepsPerMinute: 120, seconds: 60), .still(seconds: 3)], isWalk: true, seed: 2),
        source("pebble__desk.csv", [.deskWork(seconds: 200)], isWalk: false, seed: 3),
        source("pebble__typing.csv", [.typing(seconds: 100)], isWalk: false, seed: 4),
        source("pebble__drive.csv", [.driving(seconds: 60)], isWalk: false, seed: 5, steps: 7),
    ]

    @Test("bouts hold their walk's rate times their length; the day's truth adds up its pieces")
    func truth() throws {
        let day = try RecordedDays.make(name: "pebble__day-25hz-1", from: Self.sources, seed: 11)
        let bouts = day.pieces.filter { $0.kind == .bout }
        #expect(bouts.count == 40)
        for bout in bouts {
            let cadence = bout.source.contains("walk_a") ? 100.0 : 120
            let expected = cadence / 60 * (bout.sourceEndSeconds - bout.sourceStartSeconds)
            #expect(abs(bout.trueSteps - expected) <= 0.04 * expected + 0.3, "\(bout.source): \(bout.trueSteps) steps, \(expected) at its cadence")
            #expect(bout.trueSteps >= 4 - 1 && bout.trueSteps <= 60 + 1)
            #expect(bout.stepsByLength < bout.trueSteps, "the still ends make the whole-length share smaller")
        }
        #expect(day.pieces.filter { $0.source == "pebble__drive.csv" }.map(\.trueSteps) == [7], "the drive's steps counted once, whole")
        #expect(day.trueSteps == Int(day.pieces.reduce(0) { $0 + $1.trueSteps }.rounded()))
        #expect(zip(day.rows.dropFirst(), day.rows).allSatisfy { $0.timeSeconds > $1.timeSeconds }, "one time line")
        let labels = try StepLabel.read(text: RecordedDays.labelsCSV([day]), name: "labels.csv")
        #expect(labels == [StepLabel(file: "pebble__day-25hz-1.csv", trueSteps: day.trueSteps, kind: .mixed, durationSeconds: labels[0].durationSeconds)])
    }

    @Test("a day at home: 120 bouts of 4-15 steps, 3-30 s of other activity between them, no whole walks")
    func home() throws {
        let made = try RecordedDays.make(days: 1, from: Self.sources, plan: .home, seed: 3)
        #expect(made.map(\.day.name) == ["pebble__home-25hz-1"])
        let pieces = made[0].day.pieces
        let bouts = pieces.filter { $0.kind == .bout }
        #expect(bouts.count == 120 && !pieces.contains { $0.kind == .walk })
        #expect(bouts.allSatisfy { $0.trueSteps >= 4 - 1 && $0.trueSteps <= 15 + 1 }, "\(bouts.map(\.trueSteps))")
        let between = pieces.filter { $0.kind == .nonWalking && $0.trueSteps == 0 }
        #expect(between.allSatisfy { $0.sourceEndSeconds - $0.sourceStartSeconds <= 30 + 0.1 })
    }

    @Test("the same seed makes the same day; another seed another")
    func deterministic() throws {
        let a = try RecordedDays.make(name: "d", from: Self.sources, seed: 3)
        let b = try RecordedDays.make(name: "d", from: Self.sources, seed: 3)
        let c = try RecordedDays.make(name: "d", from: Self.sources, seed: 4)
        #expect(a.rows == b.rows && a.trueSteps == b.trueSteps)
        #expect(a.rows != c.rows)
    }

    @Test("a set without walks or without non-walking recordings is refused, naming the day")
    func refused() {
        #expect(throws: RecordedDays.MakeError.self) { try RecordedDays.make(name: "x", from: Array(Self.sources[2...]), seed: 1) }
        #expect(throws: RecordedDays.MakeError.self) { try RecordedDays.make(name: "x", from: Array(Self.sources[..<2]), seed: 1) }
    }
}
