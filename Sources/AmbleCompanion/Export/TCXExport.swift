import AmbleModel

/// TCX export (Garmin Training Center Database v2): one file per mindful walk, one Activity in
/// it, valid against `TrainingCenterDatabasev2.xsd` and, for the extensions, `ActivityExtensionv2.xsd`.
///
/// - **Walking, where the schema lets it be said.** `Sport` may only be Running, Biking or
///   Other, so it is `Other` (Garmin Connect and Strava read it, and file the walk as Other:
///   a `Sport="Walking"` that some converters write is read by Strava but fails the schema,
///   and Garmin Connect refuses files that fail it). The walk is filed in Training Center's
///   history under Other in a folder named `Walking` (`Folders/History/Other/Folder`), its
///   `Notes` begin "Walking", its `Training` plan is named `Walking`, and its `Creator` is the
///   Amble band. FIT (`FITExport`) says `sport = walking` outright.
/// - Laps are the stretches between pauses (`WalkActivity`); paused seconds have no
///   trackpoints, as with a watch's pause, and their steps count in the lap after them. Each
///   lap: time, distance, calories (the walk's active energy shared by steps; 0 when not
///   known), average and maximum heart rate, and in `LX` its steps and average and maximum
///   cadence. The laps add up to the walk's steps and distance.
/// - A trackpoint per second walked: time, distance walked by the second's end, heart rate
///   when trustworthy, and the cadence in `TPX RunCadence`. Garmin's run cadence counts
///   strides (one foot), so it is half the step rate: 110 steps/min is written 55. The
///   `Cadence` element is for bike crank revolutions and stays empty.
/// - The walk's pace limit, alerts and share within the limit go in the Activity's `Notes`.
///
/// Calibrations are not written: they measure the wearer's pace rather than being walks.
enum TCXExport {
    static let namespace = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
    static let extensionNamespace = "http://www.garmin.com/xmlschemas/ActivityExtension/v2"
    static let schemaInstanceNamespace = "http://www.w3.org/2001/XMLSchema-instance"

    static func files(_ sessions: [ExportedSession], notes: inout [String]) -> [ExportFile] {
        mindfulWalks(sessions, format: .tcx, notes: &notes).map { walk in
            ExportFile(name: fileName(walk), contents: document(walk), summary: "walk \(walk.session.id), \(plural(walk.seconds.filter { !$0.paused }.count, "trackpoint"))")
        }
    }

    /// `amble-walk-7-20260101T093000Z.tcx`: the laptop's session id and the start in UTC.
    static func fileName(_ walk: ExportedSession, extension: String = "tcx") -> String {
        "amble-walk-\(walk.session.id)-\(fileNameTime(walk.summary.startUnixSeconds)).\(`extension`)"
    }

    static func document(_ walk: ExportedSession) -> String {
        let s = walk.summary
        let id = isoDate(s.startUnixSeconds)
        var x = XMLWriter()
        x.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        x.open("TrainingCenterDatabase", attributes: [("xmlns", namespace), ("xmlns:ax", extensionNamespace), ("xmlns:xsi", schemaInstanceNamespace)])
        folders(activityID: id, into: &x)
        x.open("Activities")
        x.open("Activity", attributes: [("Sport", "Other")])
        x.element("Id", id)

        let laps = WalkActivity(walk).laps
        if laps.isEmpty {
            // Nothing recorded outside pauses: one lap with the walk's totals and no track.
            x.open("Lap", attributes: [("StartTime", id)])
            x.element("TotalTimeSeconds", number(max(0, s.durationSeconds), 1))
            x.element("DistanceMeters", number(s.distanceMeters, 2))
            x.element("Calories", String(min(65535, Int((s.activeKilocalories ?? 0).rounded()))))
            x.element("Intensity", "Active")
            x.element("TriggerMethod", "Manual")
            x.close("Lap")
        }
        for lap in laps { write(lap, of: walk, into: &x) }
        x.element("Notes", notes(s))
        x.open("Training", attributes: [("VirtualPartner", "false")])
        x.open("Plan", attributes: [("Type", "Workout"), ("IntervalWorkout", "false")])
        x.element("Name", "Walking")
        x.close("Plan")
        x.close("Training")
        creator(bandName: walk.session.bandName, into: &x)
        x.close("Activity")
        x.close("Activities")
        x.close("TrainingCenterDatabase")
        return x.text
    }

    /// Training Center's history folders, the walk filed under Other in `Walking`.
    private static func folders(activityID id: String, into x: inout XMLWriter) {
        x.open("Folders")
        x.open("History")
        x.line("<Running Name=\"Running\"/>")
        x.line("<Biking Name=\"Biking\"/>")
        x.open("Other", attributes: [("Name", "Other")])
        x.open("Folder", attributes: [("Name", "Walking")])
        x.open("ActivityRef")
        x.element("Id", id)
        x.close("ActivityRef")
        x.close("Folder")
        x.close("Other")
        x.line("<MultiSport Name=\"MultiSport\"/>")
        x.close("History")
        x.close("Folders")
    }

    /// One lap: its totals, a trackpoint a second walked, and its steps and cadence in `LX`.
    private static func write(_ lap: WalkActivity.Lap, of walk: ExportedSession, into x: inout XMLWriter) {
        x.open("Lap", attributes: [("StartTime", isoDate(walk.summary.startUnixSeconds + Double(lap.startOffsetSeconds)))])
        x.element("TotalTimeSeconds", String(lap.durationSeconds))
        // Rounded where the trackpoints are, so that the laps add up to the last one.
        x.element("DistanceMeters", number(hundredths(lap.endDistanceMeters) - hundredths(lap.startDistanceMeters), 2))
        x.element("Calories", String(min(65535, lap.kilocalories)))
        if let rates = lap.heartRates {
            x.open("AverageHeartRateBpm")
            x.element("Value", String(heartRate(rates.average)))
            x.close("AverageHeartRateBpm")
            x.open("MaximumHeartRateBpm")
            x.element("Value", String(heartRate(rates.maximum)))
            x.close("MaximumHeartRateBpm")
        }
        x.element("Intensity", "Active")
        x.element("TriggerMethod", "Manual")
        x.open("Track")
        for point in lap.points {
            x.open("Trackpoint")
            x.element("Time", isoDate(walk.unixSeconds(of: point.second)))
            x.element("DistanceMeters", number(hundredths(point.distanceMeters), 2))
            if let bpm = point.second.heartRateBPM, bpm.isFinite {
                x.open("HeartRateBpm")
                x.element("Value", String(heartRate(bpm)))
                x.close("HeartRateBpm")
            }
            x.open("Extensions")
            x.open("ax:TPX")
            x.element("ax:RunCadence", String(strides(point.second.cadenceStepsPerMinute)))
            x.close("ax:TPX")
            x.close("Extensions")
            x.close("Trackpoint")
        }
        x.close("Track")
        x.open("Extensions")
        x.open("ax:LX")
        if let cadences = lap.cadences {
            x.element("ax:AvgRunCadence", String(strides(cadences.average)))
            x.element("ax:MaxRunCadence", String(strides(cadences.maximum)))
        }
        x.element("ax:Steps", String(min(65535, lap.steps)))
        x.close("ax:LX")
        x.close("Extensions")
        x.close("Lap")
    }

    /// The Amble band that recorded the walk, with the release it ran.
    private static func creator(bandName: String, into x: inout XMLWriter) {
        x.open("Creator", attributes: [("xsi:type", "Device_t")])
        x.element("Name", "Amble band \(bandName)")
        x.element("UnitId", "0")
        x.element("ProductID", "0")
        x.open("Version")
        let version = ambleRelease
        x.element("VersionMajor", String(version.major))
        x.element("VersionMinor", String(version.minor))
        x.close("Version")
        x.close("Creator")
    }

    /// The walk's practice in words, for the Activity's Notes.
    static func notes(_ s: SessionSummary) -> String {
        var parts = ["Walking (Amble mindful walk): \(s.steps) steps"]
        if let limit = s.parameters.limitCadenceStepsPerMinute, let reduction = s.parameters.reductionPercent, let calibrated = s.parameters.calibratedCadenceStepsPerMinute {
            parts.append("pace limit \(Int(limit.rounded())) steps/min (\(reduction) % under the calibrated \(Int(calibrated.rounded())))")
        }
        parts.append(plural(s.alerts, "alert"))
        if let share = s.withinLimitShare { parts.append("within the limit \(Int((share * 100).rounded())) % of the walking time") }
        if s.pauses > 0 { parts.append("\(plural(s.pauses, "pause")), \(s.pausedSeconds) s") }
        return parts.joined(separator: "; ")
    }

    /// A heart rate as TCX takes it: whole beats per minute, 1...255.
    static func heartRate(_ bpm: Double) -> Int { min(255, max(1, Int(bpm.rounded()))) }

    /// Steps per minute as Garmin's run cadence: strides (one foot) per minute, 0...254.
    static func strides(_ stepsPerMinute: Double) -> Int { min(254, max(0, Int((stepsPerMinute / 2).rounded()))) }

    /// Metres rounded to the centimetre, as the file writes them.
    private static func hundredths(_ meters: Double) -> Double { (meters * 100).rounded() / 100 }

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
