/// What a session was.
public enum SessionKind: String, Codable, Sendable, CaseIterable {
    /// Walking at the wearer's normal pace to measure their cadence.
    case calibration
    /// A walk with the pace limit and its alerts.
    case mindfulWalk = "mindful-walk"
}

/// One second of a session, as stored on the band and on the laptop.
public struct SessionSecond: Codable, Equatable, Sendable {
    /// Seconds since the session started (0 is the first second).
    public var offsetSeconds: Int
    /// Steps counted in this second.
    public var steps: Int
    /// Cadence at the end of this second, steps per minute (0 when not walking).
    public var cadenceStepsPerMinute: Double
    /// Heart rate, beats per minute; nil when the signal gave no trustworthy value.
    public var heartRateBPM: Double?
    /// Confidence of `heartRateBPM`, 0...1; nil with it.
    public var heartRateConfidence: Double?
    /// The cadence was above the pace limit (mindful walks only).
    public var overLimit: Bool
    /// Pace alerts (vibrations) given in this second.
    public var alerts: Int
    /// The accelerometer gave no data for (part of) this second: steps may be missing.
    public var accelerometerGap: Bool
    /// The heart-rate sensor gave no data for (part of) this second.
    public var heartRateGap: Bool
    /// The wearer had paused the walk: this second counts neither for nor against the limit.
    public var paused: Bool

    public init(offsetSeconds: Int, steps: Int, cadenceStepsPerMinute: Double, heartRateBPM: Double? = nil, heartRateConfidence: Double? = nil, overLimit: Bool = false, alerts: Int = 0, accelerometerGap: Bool = false, heartRateGap: Bool = false, paused: Bool = false) {
        self.offsetSeconds = offsetSeconds
        self.steps = steps
        self.cadenceStepsPerMinute = cadenceStepsPerMinute
        self.heartRateBPM = heartRateBPM
        self.heartRateConfidence = heartRateConfidence
        self.overLimit = overLimit
        self.alerts = alerts
        self.accelerometerGap = accelerometerGap
        self.heartRateGap = heartRateGap
        self.paused = paused
    }

    /// Walking in this second (a cadence, and not paused): what the share within the limit
    /// is a share of.
    public var isWalking: Bool { cadenceStepsPerMinute > 0 && !paused }
}

/// What closing a session from its stored seconds needs beyond them, kept with each second
/// the band stores, so that a power cut loses at most the second under way.
public struct SessionProgress: Equatable, Sendable {
    /// Steps taken and counted by the end of the second but not yet released by the step
    /// counter (in no second's row yet), by the second they were taken in: what the session
    /// would gain if it ended then, and where.
    public var pendingSteps: [StepsAdded]
    /// Active energy of the session so far, kcal; nil when not known.
    public var activeKilocalories: Double?

    public init(pendingSteps: [StepsAdded], activeKilocalories: Double?) {
        self.pendingSteps = pendingSteps
        self.activeKilocalories = activeKilocalories
    }
}

/// The settings a session ran with.
public struct SessionParameters: Codable, Equatable, Sendable {
    /// The wearer's calibrated normal cadence, steps per minute (walks; nil for calibrations).
    public var calibratedCadenceStepsPerMinute: Double?
    /// How much slower than normal the walk asks for, per cent (walks only).
    public var reductionPercent: Int?
    /// The pace limit: calibrated cadence reduced by `reductionPercent`, steps per minute.
    public var limitCadenceStepsPerMinute: Double?
    /// Step length used for distance, metres.
    public var stepLengthMeters: Double

    public init(calibratedCadenceStepsPerMinute: Double? = nil, reductionPercent: Int? = nil, limitCadenceStepsPerMinute: Double? = nil, stepLengthMeters: Double) {
        self.calibratedCadenceStepsPerMinute = calibratedCadenceStepsPerMinute
        self.reductionPercent = reductionPercent
        self.limitCadenceStepsPerMinute = limitCadenceStepsPerMinute
        self.stepLengthMeters = stepLengthMeters
    }
}

/// A finished session's totals.
public struct SessionSummary: Codable, Equatable, Sendable {
    public var kind: SessionKind
    /// Start and end, seconds since 1970-01-01T00:00:00Z.
    public var startUnixSeconds: Double
    public var endUnixSeconds: Double
    public var parameters: SessionParameters
    public var steps: Int
    public var distanceMeters: Double
    /// Mean of the per-second heart rates that had a value; nil if none had.
    public var averageHeartRateBPM: Double?
    /// Pace alerts given.
    public var alerts: Int
    /// Seconds with the cadence above the limit.
    public var timeOverLimitSeconds: Int
    /// Seconds in which a sensor gave no data.
    public var gapSeconds: Int
    /// Heart-rate variability at rest (root mean square of successive differences), ms.
    public var rmssdMilliseconds: Double?
    /// For calibrations: the cadence measured, steps per minute (nil if the calibration failed).
    public var measuredCadenceStepsPerMinute: Double?
    /// Active energy of the walking (ACSM walking equation and the wearer's weight), kcal;
    /// nil when not known (a session recovered after a crash).
    public var activeKilocalories: Double?
    /// Highest per-second heart rate; nil if none had a value.
    public var maximumHeartRateBPM: Double?
    /// Seconds spent walking (a cadence, not paused); nil for sessions stored before it was kept.
    public var walkingSeconds: Int?
    /// Pauses the wearer took, and the seconds they lasted (not counted against the limit).
    public var pauses: Int
    public var pausedSeconds: Int

    public init(kind: SessionKind, startUnixSeconds: Double, endUnixSeconds: Double, parameters: SessionParameters, steps: Int, distanceMeters: Double, averageHeartRateBPM: Double?, alerts: Int, timeOverLimitSeconds: Int, gapSeconds: Int, rmssdMilliseconds: Double? = nil, measuredCadenceStepsPerMinute: Double? = nil, activeKilocalories: Double? = nil,
                maximumHeartRateBPM: Double? = nil, walkingSeconds: Int? = nil, pauses: Int = 0, pausedSeconds: Int = 0) {
        self.kind = kind
        self.startUnixSeconds = startUnixSeconds
        self.endUnixSeconds = endUnixSeconds
        self.parameters = parameters
        self.steps = steps
        self.distanceMeters = distanceMeters
        self.averageHeartRateBPM = averageHeartRateBPM
        self.alerts = alerts
        self.timeOverLimitSeconds = timeOverLimitSeconds
        self.gapSeconds = gapSeconds
        self.rmssdMilliseconds = rmssdMilliseconds
        self.measuredCadenceStepsPerMinute = measuredCadenceStepsPerMinute
        self.activeKilocalories = activeKilocalories
        self.maximumHeartRateBPM = maximumHeartRateBPM
        self.walkingSeconds = walkingSeconds
        self.pauses = pauses
        self.pausedSeconds = pausedSeconds
    }

    public var durationSeconds: Double { endUnixSeconds - startUnixSeconds }

    /// Of the time spent walking, the share within the pace limit (0...1); nil without a limit
    /// or without walking.
    public var withinLimitShare: Double? {
        guard parameters.limitCadenceStepsPerMinute != nil, let walking = walkingSeconds, walking > 0 else { return nil }
        return Double(max(0, walking - timeOverLimitSeconds)) / Double(walking)
    }

    /// Walking speed, metres per second, for a calibration's result (cadence × step length).
    public var speedMetersPerSecond: Double? {
        measuredCadenceStepsPerMinute.map { $0 / 60 * parameters.stepLengthMeters }
    }
}

/// Steps to add to a second of a session already stored: the band's step counter releases
/// steps about 10 s after they were taken, and the band files them under the second they were
/// taken in.
public struct StepsAdded: Equatable, Sendable {
    /// The second's offset in its session.
    public var offsetSeconds: Int
    public var steps: Int

    public init(offsetSeconds: Int, steps: Int) {
        self.offsetSeconds = offsetSeconds
        self.steps = steps
    }

    /// Steps by the second they were taken in (`[0]` in the second at `newestOffset`, `[n]`
    /// n seconds before it) as additions to a session's seconds. Steps taken before the
    /// session's first second (offset 0) are not the session's and are left out.
    public static func toSeconds(_ stepsBySecondsAgo: some Sequence<Int>, newestOffset: Int) -> [StepsAdded] {
        var added: [StepsAdded] = []
        for (age, steps) in stepsBySecondsAgo.enumerated() where steps != 0 && newestOffset - age >= 0 {
            added.append(StepsAdded(offsetSeconds: newestOffset - age, steps: steps))
        }
        return added
    }
}

/// Running totals of a session's seconds: the one place a summary is computed from rows.
public struct SessionTally: Equatable, Sendable {
    public private(set) var seconds = 0
    public private(set) var steps = 0
    public private(set) var alerts = 0
    public private(set) var overLimitSeconds = 0
    public private(set) var gapSeconds = 0
    public private(set) var walkingSeconds = 0
    public private(set) var pauses = 0
    public private(set) var pausedSeconds = 0
    public private(set) var maximumHeartRateBPM: Double?
    /// Active energy so far, kcal (from `add(_:kilocalories:)`; nil if never given).
    public private(set) var kilocalories: Double?
    private var heartRateSum = 0.0
    private var heartRateCount = 0
    private var lastPaused = false

    public init() {}

    public init(_ rows: some Sequence<SessionSecond>) {
        for row in rows { add(row) }
    }

    /// Adds a second; `kilocalories`, when given, is the active energy spent in it.
    public mutating func add(_ row: SessionSecond, kilocalories: Double? = nil) {
        seconds += 1
        steps += row.steps
        alerts += row.alerts
        if row.overLimit && !row.paused { overLimitSeconds += 1 }
        if row.accelerometerGap || row.heartRateGap { gapSeconds += 1 }
        if row.isWalking { walkingSeconds += 1 }
        if row.paused {
            pausedSeconds += 1
            if !lastPaused { pauses += 1 }
        }
        lastPaused = row.paused
        if let bpm = row.heartRateBPM {
            heartRateSum += bpm
            heartRateCount += 1
            maximumHeartRateBPM = max(maximumHeartRateBPM ?? bpm, bpm)
        }
        if let kilocalories { self.kilocalories = (self.kilocalories ?? 0) + kilocalories }
    }

    /// Adds steps to seconds already counted (the step counter releases them late).
    public mutating func add(_ added: [StepsAdded]) {
        for addition in added { steps += addition.steps }
    }

    public var averageHeartRateBPM: Double? {
        heartRateCount > 0 ? heartRateSum / Double(heartRateCount) : nil
    }

    public func summary(kind: SessionKind, startUnixSeconds: Double, endUnixSeconds: Double, parameters: SessionParameters, rmssdMilliseconds: Double? = nil, measuredCadenceStepsPerMinute: Double? = nil) -> SessionSummary {
        SessionSummary(
            kind: kind, startUnixSeconds: startUnixSeconds, endUnixSeconds: endUnixSeconds, parameters: parameters,
            steps: steps, distanceMeters: Double(steps) * parameters.stepLengthMeters,
            averageHeartRateBPM: averageHeartRateBPM, alerts: alerts, timeOverLimitSeconds: overLimitSeconds,
            gapSeconds: gapSeconds, rmssdMilliseconds: rmssdMilliseconds, measuredCadenceStepsPerMinute: measuredCadenceStepsPerMinute,
            activeKilocalories: kilocalories, maximumHeartRateBPM: maximumHeartRateBPM, walkingSeconds: walkingSeconds,
            pauses: pauses, pausedSeconds: pausedSeconds
        )
    }
}

/// The part of a session's data received before a sync was cut: the next sync asks the band
/// for the rest, from `bytes.count` on.
public struct PartialDownload: Equatable, Sendable {
    /// The whole data's length, bytes (as the band announced it).
    public var totalLength: Int
    /// The whole data's CRC-32 (as the band announced it), checked once every byte is in.
    public var crc32: UInt32
    /// The bytes received so far, from the start: at most `totalLength` of them.
    public var bytes: [UInt8]
    public init(totalLength: Int, crc32: UInt32, bytes: [UInt8]) {
        self.totalLength = totalLength
        self.crc32 = crc32
        self.bytes = bytes
    }
}

/// A whole session: what the band sends and the laptop keeps.
public struct SessionRecord: Codable, Equatable, Sendable {
    public var summary: SessionSummary
    public var seconds: [SessionSecond]
    /// Raw sensor samples, in time order per sensor; empty unless the wearer consented to raw
    /// capture (`consent_raw_capture`) while the session was recorded.
    public var raw: [RawBlock]

    public init(summary: SessionSummary, seconds: [SessionSecond], raw: [RawBlock] = []) {
        self.summary = summary
        self.seconds = seconds
        self.raw = raw
    }
}

/// The wearer's calibrated walking: what the pace limit is made from.
public struct Calibration: Codable, Equatable, Sendable {
    /// Normal walking cadence, steps per minute.
    public var cadenceStepsPerMinute: Double
    /// Step length measured over a known distance, metres; nil when not measured.
    public var stepLengthMeters: Double?
    /// When it was made, seconds since 1970-01-01T00:00:00Z.
    public var unixSeconds: Double

    public init(cadenceStepsPerMinute: Double, stepLengthMeters: Double?, unixSeconds: Double) {
        self.cadenceStepsPerMinute = cadenceStepsPerMinute
        self.stepLengthMeters = stepLengthMeters
        self.unixSeconds = unixSeconds
    }
}
