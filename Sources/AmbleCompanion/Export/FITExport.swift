import AmbleModel

/// FIT export: one activity file per mindful walk (`amble-walk-ID-START.fit`), the format
/// Garmin, Strava and the health-platform bridges prefer, checked with Garmin's own decoder
/// (scripts/validate-exports).
///
/// - `sport = walking` (11) in the session and its laps: the tools file it as a walk.
/// - file_id (an activity, manufacturer "development"), device_info (the Amble band), a timer
///   start event, a record per second walked, a lap per stretch between pauses (its timer
///   stopped and started again around each pause), a session and an activity.
/// - A record per second walked, stamped at the second's end: distance walked by then (the
///   steps so far times the step length: `WalkActivity`), heart rate when trustworthy,
///   cadence and speed (cadence times step length). Paused seconds have none.
/// - Cadence as Garmin writes a walk's and a run's: strides (one foot) per minute, half the
///   step rate, its fraction in `fractional_cadence`; steps as `total_strides` (half the
///   steps, the half in `total_fractional_cycles`): a decoder reads 2 x strides back as the
///   walk's steps exactly.
/// - Each lap's and the session's totals: time, distance, strides, calories (the walk's active
///   energy shared by steps, as in TCX), heart rate and cadence. The laps add up to the
///   session, and the session to the walk's summary.
enum FITExport {
    /// Global message numbers and the fields Amble writes, from the FIT profile.
    enum Message {
        static let fileID: UInt16 = 0
        static let session: UInt16 = 18
        static let lap: UInt16 = 19
        static let record: UInt16 = 20
        static let event: UInt16 = 21
        static let deviceInfo: UInt16 = 23
        static let activity: UInt16 = 34
    }

    typealias Field = FITWriter.Field

    /// Fields several messages share, with the same number.
    enum Common {
        static let timestamp = Field(253, .uint32)
        static let messageIndex = Field(254, .uint16)
    }

    enum FileID {
        static let type = Field(0, .enumeration)
        static let manufacturer = Field(1, .uint16)
        static let product = Field(2, .uint16)
        static let timeCreated = Field(4, .uint32)
        static let productName = Field(8, .string, size: 16)
        /// `file` 4: an activity.
        static let activityFile = 4
    }

    enum DeviceInfo {
        static let deviceIndex = Field(0, .uint8)
        static let manufacturer = Field(2, .uint16)
        static let product = Field(4, .uint16)
        /// Version x 100.
        static let softwareVersion = Field(5, .uint16)
        static let productName = Field(27, .string, size: 32)
    }

    /// `manufacturer` 255: development (no manufacturer id of its own).
    static let development = 255

    enum Event {
        static let event = Field(0, .enumeration)
        static let eventType = Field(1, .enumeration)
        static let eventGroup = Field(4, .uint8)
        /// `event`: the timer, a lap, the session, the activity.
        static let timer = 0, lap = 9, session = 8, activity = 26
        /// `event_type`: start, stop, stop all.
        static let start = 0, stop = 1, stopAll = 4
    }

    enum Record {
        static let heartRate = Field(3, .uint8)
        /// Strides per minute, whole.
        static let cadence = Field(4, .uint8)
        /// Metres x 100.
        static let distance = Field(5, .uint32)
        /// Metres per second x 1000.
        static let speed = Field(6, .uint16)
        /// The fraction of the cadence, x 128.
        static let fractionalCadence = Field(53, .uint8)
    }

    /// The fields a lap and the session share, by name (their numbers differ).
    struct Totals {
        var startTime: Field
        var elapsedTime: Field
        var timerTime: Field
        var distance: Field
        var strides: Field
        var fractionalStrides: Field
        var calories: Field
        var averageHeartRate: Field
        var maximumHeartRate: Field
        var averageCadence: Field
        var maximumCadence: Field
        var averageFractionalCadence: Field
        var maximumFractionalCadence: Field
        var averageSpeed: Field
        var sport: Field
        var subSport: Field
    }

    static let lapTotals = Totals(
        startTime: Field(2, .uint32), elapsedTime: Field(7, .uint32), timerTime: Field(8, .uint32), distance: Field(9, .uint32),
        strides: Field(10, .uint32), fractionalStrides: Field(82, .uint8), calories: Field(11, .uint16),
        averageHeartRate: Field(15, .uint8), maximumHeartRate: Field(16, .uint8), averageCadence: Field(17, .uint8),
        maximumCadence: Field(18, .uint8), averageFractionalCadence: Field(80, .uint8), maximumFractionalCadence: Field(81, .uint8),
        averageSpeed: Field(13, .uint16), sport: Field(25, .enumeration), subSport: Field(39, .enumeration))
    static let sessionTotals = Totals(
        startTime: Field(2, .uint32), elapsedTime: Field(7, .uint32), timerTime: Field(8, .uint32), distance: Field(9, .uint32),
        strides: Field(10, .uint32), fractionalStrides: Field(94, .uint8), calories: Field(11, .uint16),
        averageHeartRate: Field(16, .uint8), maximumHeartRate: Field(17, .uint8), averageCadence: Field(18, .uint8),
        maximumCadence: Field(19, .uint8), averageFractionalCadence: Field(92, .uint8), maximumFractionalCadence: Field(93, .uint8),
        averageSpeed: Field(14, .uint16), sport: Field(5, .enumeration), subSport: Field(6, .enumeration))

    static let lapTrigger = Field(24, .enumeration)
    /// `lap_trigger`: manual (the wearer paused), session end.
    static let manualTrigger = 0, sessionEndTrigger = 7
    static let numberOfLaps = Field(26, .uint16)
    static let firstLapIndex = Field(25, .uint16)
    static let sessionTrigger = Field(28, .enumeration)
    /// `sport` 11: walking; `sub_sport` 0: generic.
    static let walking = 11, generic = 0

    enum Activity {
        static let totalTimerTime = Field(0, .uint32)
        static let numberOfSessions = Field(1, .uint16)
        static let type = Field(2, .enumeration)
        static let event = Field(3, .enumeration)
        static let eventType = Field(4, .enumeration)
    }

    static func files(_ sessions: [ExportedSession], notes: inout [String]) -> [ExportFile] {
        mindfulWalks(sessions, format: .fit, notes: &notes).map { walk in
            ExportFile(name: TCXExport.fileName(walk, extension: "fit"), bytes: file(walk),
                       summary: "walk \(walk.session.id), \(plural(walk.seconds.filter { !$0.paused }.count, "record"))")
        }
    }

    /// The walk as a FIT activity file.
    static func file(_ walk: ExportedSession) -> [UInt8] {
        let s = walk.summary
        let stepLength = s.parameters.stepLengthMeters
        let start = FITWriter.time(s.startUnixSeconds)
        let end = max(FITWriter.time(s.endUnixSeconds), start + (walk.seconds.last?.offsetSeconds ?? -1) + 1)
        var fit = FITWriter()
        fit.write(Message.fileID, [
            (FileID.type, .number(FileID.activityFile)), (FileID.manufacturer, .number(development)), (FileID.product, .number(0)),
            (FileID.timeCreated, .number(start)), (FileID.productName, .text("Amble")),
        ])
        fit.write(Message.deviceInfo, [
            (Common.timestamp, .number(start)), (DeviceInfo.deviceIndex, .number(0)), (DeviceInfo.manufacturer, .number(development)),
            (DeviceInfo.product, .number(0)), (DeviceInfo.softwareVersion, .number(softwareVersion)),
            (DeviceInfo.productName, .text("Amble band \(walk.session.bandName)")),
        ])

        var laps = WalkActivity(walk).laps
        if laps.isEmpty {
            // Nothing recorded outside pauses: one lap with the walk's totals and no records.
            var only = WalkActivity.Lap(points: [], steps: s.steps, startDistanceMeters: 0)
            only.kilocalories = Int((s.activeKilocalories ?? 0).rounded())
            laps = [only]
        }
        var timerSeconds = 0
        var lapStart = start
        for (index, lap) in laps.enumerated() {
            // A lap runs from the end of the one before (a pause before it is its own, as its
            // steps are) to its last second; the last one to the walk's end.
            let walkedFrom = start + lap.startOffsetSeconds
            let lapEnd = index == laps.count - 1 ? end : walkedFrom + lap.durationSeconds
            timerSeconds += lap.durationSeconds
            fit.write(Message.event, event(Event.timer, Event.start, at: walkedFrom))
            for point in lap.points {
                let cadence = strides(point.second.cadenceStepsPerMinute)
                fit.write(Message.record, [
                    (Common.timestamp, .number(start + point.second.offsetSeconds + 1)),
                    (Record.distance, .number(centimetres(point.distanceMeters))),
                    (Record.heartRate, .number(point.second.heartRateBPM.flatMap(beatsPerMinute))),
                    (Record.cadence, .number(cadence.whole)), (Record.fractionalCadence, .number(cadence.fraction)),
                    (Record.speed, .number(Int((point.second.cadenceStepsPerMinute / 60 * stepLength * 1000).rounded()))),
                ])
            }
            fit.write(Message.event, event(Event.timer, Event.stopAll, at: walkedFrom + lap.durationSeconds))
            let distance = centimetres(lap.endDistanceMeters) - centimetres(lap.startDistanceMeters)
            var fields: [(Field, FITWriter.Value)] = [
                (Common.messageIndex, .number(index)), (Common.timestamp, .number(lapEnd)),
                (Event.event, .number(Event.lap)), (Event.eventType, .number(Event.stop)),
                (lapTrigger, .number(index == laps.count - 1 ? sessionEndTrigger : manualTrigger)),
            ]
            fields += totals(lapTotals, start: lapStart, elapsedSeconds: Double(lapEnd - lapStart), timerSeconds: lap.durationSeconds,
                             distanceCentimetres: distance, steps: lap.steps,
                             kilocalories: s.activeKilocalories == nil ? nil : lap.kilocalories,
                             heartRates: lap.heartRates, cadences: lap.cadences)
            fit.write(Message.lap, fields)
            lapStart = lapEnd
        }

        let walked = WalkActivity.Lap.meanAndMaximum(walk.seconds.filter(\.isWalking).map(\.cadenceStepsPerMinute))
        let heartRates = s.averageHeartRateBPM.map { ($0, s.maximumHeartRateBPM ?? $0) }
        var session: [(Field, FITWriter.Value)] = [
            (Common.messageIndex, .number(0)), (Common.timestamp, .number(end)),
            (Event.event, .number(Event.session)), (Event.eventType, .number(Event.stop)),
            (firstLapIndex, .number(0)), (numberOfLaps, .number(laps.count)), (sessionTrigger, .number(0)),
        ]
        session += totals(sessionTotals, start: start, elapsedSeconds: max(0, s.durationSeconds), timerSeconds: timerSeconds,
                          distanceCentimetres: centimetres(s.distanceMeters), steps: s.steps,
                          kilocalories: s.activeKilocalories.map { Int($0.rounded()) }, heartRates: heartRates, cadences: walked)
        fit.write(Message.session, session)
        fit.write(Message.activity, [
            (Common.timestamp, .number(end)), (Activity.totalTimerTime, .number(timerSeconds * 1000)),
            (Activity.numberOfSessions, .number(1)), (Activity.type, .number(0)),
            (Activity.event, .number(Event.activity)), (Activity.eventType, .number(Event.stop)),
        ])
        return fit.bytes
    }

    private static func event(_ event: Int, _ type: Int, at time: Int) -> [(Field, FITWriter.Value)] {
        [(Common.timestamp, .number(time)), (Event.event, .number(event)), (Event.eventType, .number(type)), (Event.eventGroup, .number(0))]
    }

    /// A lap's or the session's totals.
    private static func totals(_ f: Totals, start: Int, elapsedSeconds: Double, timerSeconds: Int, distanceCentimetres: Int, steps: Int,
                               kilocalories: Int?, heartRates: (average: Double, maximum: Double)?,
                               cadences: (average: Double, maximum: Double)?) -> [(Field, FITWriter.Value)] {
        let average = cadences.map { strides($0.average) }
        let maximum = cadences.map { strides($0.maximum) }
        return [
            (f.startTime, .number(start)), (f.elapsedTime, .number(Int((elapsedSeconds * 1000).rounded()))),
            (f.timerTime, .number(timerSeconds * 1000)), (f.distance, .number(distanceCentimetres)),
            (f.strides, .number(steps / 2)), (f.fractionalStrides, .number(steps % 2 * 64)),
            (f.calories, .number(kilocalories)),
            (f.averageHeartRate, .number(heartRates.flatMap { beatsPerMinute($0.average) })),
            (f.maximumHeartRate, .number(heartRates.flatMap { beatsPerMinute($0.maximum) })),
            (f.averageCadence, .number(average?.whole)), (f.averageFractionalCadence, .number(average?.fraction)),
            (f.maximumCadence, .number(maximum?.whole)), (f.maximumFractionalCadence, .number(maximum?.fraction)),
            (f.averageSpeed, .number(timerSeconds > 0 ? Int((Double(distanceCentimetres) * 10 / Double(timerSeconds)).rounded()) : nil)),
            (f.sport, .number(walking)), (f.subSport, .number(generic)),
        ]
    }

    /// Amble's release as FIT's software version, hundredths: 0.1 is 10, 1.12 is 112.
    static var softwareVersion: Int {
        Int(((Double("\(ambleRelease.major).\(ambleRelease.minor)") ?? 0) * 100).rounded())
    }

    /// Steps per minute as strides per minute: whole, and the fraction in 128ths.
    static func strides(_ stepsPerMinute: Double) -> (whole: Int, fraction: Int) {
        let strides = min(254, max(0, stepsPerMinute.isFinite ? stepsPerMinute / 2 : 0))
        var whole = Int(strides.rounded(.down))
        var fraction = Int(((strides - Double(whole)) * 128).rounded())
        if fraction == 128 { whole += 1; fraction = 0 }
        return (whole, fraction)
    }

    /// Whole beats per minute, 1...254; nil when not finite.
    private static func beatsPerMinute(_ bpm: Double) -> Int? {
        bpm.isFinite ? min(254, max(1, Int(bpm.rounded()))) : nil
    }

    /// Metres as FIT's distances: centimetres.
    private static func centimetres(_ meters: Double) -> Int { Int((meters * 100).rounded()) }
}
