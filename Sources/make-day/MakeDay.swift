// make-day: synthetic days cut from the development recordings (bouts of a few to a few dozen
// steps from counted walks between stretches of non-walking recordings, and a few whole walks),
// written as steps CSV recordings with labels.csv (kind mixed) and pieces.csv. A developer's
// tool (scripts/make-day); the days are made from third-party recordings and stay outside the
// repository.

import AmbleRecordings
import AmbleSimulation
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@main
struct MakeDay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "make-day",
        abstract: "Synthetic days of short walking bouts and everyday activity, made from labelled wrist recordings.",
        discussion: """
            Per device and sample rate found in the folders (Bangle.js 12.5 Hz, Pebble 25 Hz, \
            Sensor Watch 12.5 and 25 Hz, magnitude only), DAYS days, each of BOUTS bouts of 4-60 \
            steps cut from counted walks at low-motion points, stretches of 15-150 s of the \
            device's non-walking recordings between them, two whole walks of at most 300 s, and \
            each non-walking recording that holds real steps used whole once (its steps counted). \
            A bout's truth is its walk's count times its share of the walk's active span \
            (docs/steps.md, "Mixed days"); pieces.csv lists every piece with its truth and the \
            same share of the walk's whole length beside it. The same seed makes the same days.
            """)

    @Option(name: .customLong("data"), parsing: .singleValue,
            help: ArgumentHelp("A folder of recordings with its labels.csv (repeatable).", valueName: "folder"))
    var folders: [String] = ["../shared/data/dev/steps", "../shared/data/dev/steps-pebble"]

    @Option(help: ArgumentHelp("Where the days are written (made if missing; its labels.csv and pieces.csv replaced).", valueName: "folder"))
    var out = ".build/days"

    @Option(help: "Days per device and rate.")
    var days = 3

    @Option(help: "Bouts in a day.")
    var bouts = 40

    @Option(help: "Seed of the days.")
    var seed: UInt64 = 1

    @Flag(help: "Leave out the non-walking recordings that hold real steps (by default each is used whole once a day, its steps counted).")
    var withoutRealSteps = false

    @Flag(help: "Days at home instead: 120 bouts of 4-15 steps between 3-30 s of other activity, no whole walks (named ..._home-...; --bouts still sets the count).")
    var home = false

    func validate() throws {
        guard days >= 1 else { throw ValidationError("--days \(days): expected 1 or more") }
        guard bouts >= 1 else { throw ValidationError("--bouts \(bouts): expected 1 or more") }
    }

    func run() throws {
        var plan = home ? RecordedDays.Plan.home : RecordedDays.Plan()
        if !home || bouts != 40 { plan.bouts = bouts }
        plan.includesRecordingsWithSteps = !withoutRealSteps
        let made = try RecordedDays.make(days: days, from: RecordedDays.read(folders: folders).compactMap(RecordedDays.Source.init), plan: plan, seed: seed)
        guard !made.isEmpty else { throw ValidationError("no device in \(folders.joined(separator: ", ")) has both walks and non-walking recordings") }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        for (device, day) in made {
            let csv = SyntheticActivities.csv(day.rows)
            try write(csv, to: out + "/" + day.name + ".csv")
            let bouts = day.pieces.filter { $0.kind == .bout }
            let boutSteps = bouts.reduce(0) { $0 + $1.trueSteps }, byLength = bouts.reduce(0) { $0 + $1.stepsByLength }
            print("\(day.name).csv  \(device)  \(Int(day.durationSeconds / 60)) min  \(day.trueSteps) steps"
                  + "  (\(bouts.count) bouts: \(Int(boutSteps.rounded())) steps, \(Int(byLength.rounded())) by the walks' whole length)")
        }
        try write(RecordedDays.labelsCSV(made.map(\.day)), to: out + "/labels.csv")
        try write(RecordedDays.piecesCSV(made.map(\.day)), to: out + "/pieces.csv")
        print("wrote \(made.count) days, labels.csv and pieces.csv to \(out)")
    }

    func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw ValidationError("could not write \(path): \(error); check that the folder is writable")
        }
    }
}
