import AmbleModel

/// TCX export (Garmin Training Center Database v2): one file per mindful walk, one Activity in
/// it, valid against `TrainingCenterDatabasev2.xsd` and, for the extensions, `ActivityExtensionv2.xsd`.
///
/// - `Sport="Other"`: the schema allows only Running, Biking and Other.
/// - Laps are the stretches between pauses; paused seconds have no trackpoints, as with a
///   watch's auto-pause. Steps stored in paused seconds (the step counter releases steps
///   about 10 s after they were taken) count in the lap before the pause, at its last
///   trackpoint, so the laps add up to the walk's steps and distance. Each lap: time, distance, calories (the walk's active energy shared by steps; 0 when not
///   known), average and maximum heart rate, and in `LX` its steps and average and maximum
///   cadence.
/// - A trackpoint per second: time, distance so far, heart rate when trustworthy, and the
///   cadence in `TPX RunCadence`. Garmin's run cadence counts strides (one foot), so it is
///   half the step rate: 110 steps/min is written 55. The `Cadence` element is for bike
///   crank revolutions and stays empty.
/// - The walk's pace limit, alerts and share within the limit go in the Activity's `Notes`.
///
/// Calibrations are not written: they measure the wearer's pace rather than being walks.
enum TCXExport {
    static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    static let extensionNamespace = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"

    static func files(_ sessions: [ExportedSession], notes: inout [String]) -> [ExportFile] {
        let walks = sessions.filter { $0.summary.kind == .mindfulWalk }
        let left = sessions.count - walks.count
        if left > 0 {
            notes.append("tcx: left out \(plural(left, "calibration")) (TCX holds the mindful walks)")
        }
        return walks.map { walk in
            ExportFile(name: fileName(walk), contents: document(walk), summary: "walk \(walk.session.id), \(plural(walk.seconds.filter { !$0.paused }.count, "trackpoint"))")
        }
    }

    /// `amble-walk-7-20260101T093000Z.tcx`: the laptop's session id and the start in UTC.
    static func fileName(_ walk: ExportedSession) -> String {
        "amble-walk-\(walk.session.id)-\(fileNameTime(walk.summary.startUnixSeconds)).tcx"
    }

    /// A stretch of the walk between pauses.
    struct Lap: Equatable {
        var seconds: [SessionSecond]
        /// Steps stored in the paused seconds next to the lap (after it, or before the first).
        var pausedSteps = 0
        var steps: Int { seconds.reduce(pausedSteps) { $0 + $1.steps } }
    }

    /// The walk's laps: maximal runs of seconds that are not paused, each with the steps of
    /// the paused seconds after it (the first also with those before it).
    static func laps(_ seconds: [SessionSecond]) -> [Lap] {
        var laps: [Lap] = []
        var current = Lap(seconds: [])
        var leading = 0
        for second in seconds {
            if second.paused {
                if !current.seconds.isEmpty {
                    laps.append(current)
                    current = Lap(seconds: [])
                }
                if laps.isEmpty { leading += second.steps } else { laps[laps.count - 1].pausedSteps += second.steps }
            } else {
                current.seconds.append(second)
            }
        }
        if !current.seconds.isEmpty { laps.append(current) }
        if !laps.isEmpty { laps[0].pausedSteps += leading }
        return laps
    }

    static func document(_ walk: ExportedSession) -> String {
        let s = walk.summary
        let stepLength = s.parameters.stepLengthMeters
        var x = XMLWriter()
        x.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        x.open("TrainingCenterDatabase", attributes: [("xmlns", namespace), ("xmlns:ax", extensionNamespace)])
        x.open("Activities")
        x.open("Activity", attributes: [("Sport", "Other")])
        x.element("Id", isoDate(s.startUnixSeconds))

        let laps = laps(walk.seconds)
        let lapSteps = laps.map(\.steps)
        let calories = shares(of: s.activeKilocalories ?? 0, by: lapSteps)
        var distance = 0.0
        if laps.isEmpty {
            // Nothing recorded outside pauses: one lap with the walk's totals and no track.
            x.open("Lap", attributes: [("StartTime", isoDate(s.startUnixSeconds))])
            x.element("TotalTimeSeconds", number(max(0, s.durationSeconds), 1))
            x.element("DistanceMeters", number(s.distanceMeters, 2))
            x.element("Calories", String(min(65535, Int((s.activeKilocalories ?? 0).rounded()))))
            x.element("Intensity", "Active")
            x.element("TriggerMethod", "Manual")
            x.close("Lap")
        }
        for (index, lap) in laps.enumerated() {
            let first = lap.seconds[0]
            x.open("Lap", attributes: [("StartTime", isoDate(walk.unixSeconds(of: first)))])
            x.element("TotalTimeSeconds", String(lap.seconds.count))
            x.element("DistanceMeters", number(Double(lap.steps) * stepLength, 2))
            x.element("Calories", String(calories[index]))
            let rates = lap.seconds.compactMap(\.heartRateBPM).filter(\.isFinite)
            if !rates.isEmpty {
                x.open("AverageHeartRateBpm")
                x.element("Value", String(heartRate(rates.reduce(0, +) / Double(rates.count))))
                x.close("AverageHeartRateBpm")
                x.open("MaximumHeartRateBpm")
                x.element("Value", String(heartRate(rates.max()!)))
                x.close("MaximumHeartRateBpm")
            }
            x.element("Intensity", "Active")
            x.element("TriggerMethod", "Manual")
            x.open("Track")
            for (position, second) in lap.seconds.enumerated() {
                distance += Double(second.steps + (position == lap.seconds.count - 1 ? lap.pausedSteps : 0)) * stepLength
                x.open("Trackpoint")
                x.element("Time", isoDate(walk.unixSeconds(of: second)))
                x.element("DistanceMeters", number(distance, 2))
                if let bpm = second.heartRateBPM, bpm.isFinite {
                    x.open("HeartRateBpm")
                    x.element("Value", String(heartRate(bpm)))
                    x.close("HeartRateBpm")
                }
                x.open("Extensions")
                x.open("ax:TPX")
                x.element("ax:RunCadence", String(strides(second.cadenceStepsPerMinute)))
                x.close("ax:TPX")
                x.close("Extensions")
                x.close("Trackpoint")
            }
            x.close("Track")
            let walking = lap.seconds.filter { $0.cadenceStepsPerMinute > 0 }.map(\.cadenceStepsPerMinute)
            x.open("Extensions")
            x.open("ax:LX")
            if !walking.isEmpty {
                x.element("ax:AvgRunCadence", String(strides(walking.reduce(0, +) / Double(walking.count))))
                x.element("ax:MaxRunCadence", String(strides(walking.max()!)))
            }
            x.element("ax:Steps", String(min(65535, lap.steps)))
            x.close("ax:LX")
            x.close("Extensions")
            x.close("Lap")
        }
        x.element("Notes", notes(s))
        x.close("Activity")
        x.close("Activities")
        x.close("TrainingCenterDatabase")
        return x.text
    }

    /// The walk's practice in words, for the Activity's Notes.
    static func notes(_ s: SessionSummary) -> String {
        var parts = ["Amble mindful walk: \(s.steps) steps"]
        if let limit = s.parameters.limitCadenceStepsPerMinute, let reduction = s.parameters.reductionPercent, let calibrated = s.parameters.calibratedCadenceStepsPerMinute {
            parts.append("pace limit \(Int(limit.rounded())) steps/min (\(reduction) % under the calibrated \(Int(calibrated.rounded())))")
        }
        parts.append(plural(s.alerts, "alert"))
        if let share = s.withinLimitShare { parts.append("within the limit \(Int((share * 100).rounded())) % of the walking time") }
        if s.pauses > 0 { parts.append("\(plural(s.pauses, "pause")), \(s.pausedSeconds) s") }
        return parts.joined(separator: "; ")
    }

    /// `total` split in whole numbers in proportion to `weights` (evenly when they are all 0),
    /// adding up to `total` rounded; each at most 65535 (TCX Calories is an unsigned short).
    static func shares(of total: Double, by weights: [Int]) -> [Int] {
        guard !weights.isEmpty else { return [] }
        let sum = weights.reduce(0, +)
        let rounded = max(0, Int(total.rounded()))
        var result: [Int] = []
        var given = 0
        var cumulative = 0
        for (index, weight) in weights.enumerated() {
            cumulative += weight
            let upTo = sum > 0 ? Double(rounded) * Double(cumulative) / Double(sum) : Double(rounded) * Double(index + 1) / Double(weights.count)
            let share = Int(upTo.rounded()) - given
            given += share
            result.append(min(65535, share))
        }
        return result
    }

    /// A heart rate as TCX takes it: whole beats per minute, 1...255.
    static func heartRate(_ bpm: Double) -> Int { min(255, max(1, Int(bpm.rounded()))) }

    /// Steps per minute as Garmin's run cadence: strides (one foot) per minute, 0...254.
    static func strides(_ stepsPerMinute: Double) -> Int { min(254, max(0, Int((stepsPerMinute / 2).rounded()))) }

    private static func number(_ value: Double, _ digits: Int) -> String {
        exportNumber(value, digits: digits) ?? "0"
    }
}

/// Indented XML, built line by line; text and attribute values are escaped.
struct XMLWriter {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ line: String) {
        text += String(repeating: "  ", count: depth) + line + "\n"
    }

    mutating func open(_ name: String, attributes: [(String, String)] = []) {
        line("<" + name + attributes.map { " \($0.0)=\"\(Self.escape($0.1))\"" }.joined() + ">")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    mutating func element(_ name: String, _ value: String) {
        line("<\(name)>\(Self.escape(value))</\(name)>")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
