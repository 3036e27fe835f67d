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

    public init(offsetSeconds: Int, steps: Int, cadenceStepsPerMinute: Double, heartRateBPM: Double? = nil, heartRateConfidence: Double? = nil, overLimit: Bool = false, alerts: Int = 0, accelerometerGap: Bool = false, heartRateGap: Bool = false) {
        self.offsetSeconds = offsetSeconds
        self.steps = steps
        self.cadenceStepsPerMinute = cadenceStepsPerMinute
        self.heartRateBPM = heartRateBPM
        self.heartRateConfidence = heartRateConfidence
        self.overLimit = overLimit
        self.alerts = alerts
        self.accelerometerGap = accelerometerGap
        self.heartRateGap = heartRateGap
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

    public init(kind: SessionKind, startUnixSeconds: Double, endUnixSeconds: Double, parameters: SessionParameters, steps: Int, distanceMeters: Double, averageHeartRateBPM: Double?, alerts: Int, timeOverLimitSeconds: Int, gapSeconds: Int, rmssdMilliseconds: Double? = nil, measuredCadenceStepsPerMinute: Double? = nil, activeKilocalories: Double? = nil) {
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
    }

    public var durationSeconds: Double { endUnixSeconds - startUnixSeconds }
}

/// Running totals of a session's seconds: the one place a summary is computed from rows.
public struct SessionTally: Equatable, Sendable {
    public private(set) var seconds = 0
    public private(set) var steps = 0
    public private(set) var alerts = 0
    public private(set) var overLimitSeconds = 0
    public private(set) var gapSeconds = 0
    private var heartRateSum = 0.0
    private var heartRateCount = 0

    public init() {}

    public init(_ rows: some Sequence<SessionSecond>) {
        for row in rows { add(row) }
    }

    public mutating func add(_ row: SessionSecond) {
        seconds += 1
        steps += row.steps
        alerts += row.alerts
        if row.overLimit { overLimitSeconds += 1 }
        if row.accelerometerGap || row.heartRateGap { gapSeconds += 1 }
        if let bpm = row.heartRateBPM {
            heartRateSum += bpm
            heartRateCount += 1
        }
    }

    public var averageHeartRateBPM: Double? {
        heartRateCount > 0 ? heartRateSum / Double(heartRateCount) : nil
    }

    public func summary(kind: SessionKind, startUnixSeconds: Double, endUnixSeconds: Double, parameters: SessionParameters, rmssdMilliseconds: Double? = nil, measuredCadenceStepsPerMinute: Double? = nil) -> SessionSummary {
        SessionSummary(
            kind: kind, startUnixSeconds: startUnixSeconds, endUnixSeconds: endUnixSeconds, parameters: parameters,
            steps: steps, distanceMeters: Double(steps) * parameters.stepLengthMeters,
            averageHeartRateBPM: averageHeartRateBPM, alerts: alerts, timeOverLimitSeconds: overLimitSeconds,
            gapSeconds: gapSeconds, rmssdMilliseconds: rmssdMilliseconds, measuredCadenceStepsPerMinute: measuredCadenceStepsPerMinute
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

    public init(summary: SessionSummary, seconds: [SessionSecond]) {
        self.summary = summary
        self.seconds = seconds
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
