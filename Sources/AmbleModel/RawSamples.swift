/// Which sensor a block of raw samples came from.
public enum RawSensor: String, Codable, Sendable, CaseIterable {
    /// Acceleration: three channels (x, y, z), milli-g (mg), as signed 16-bit values.
    case accelerometer
    /// Photoplethysmography: one to three channels of ADC counts (the MAX30102's are infrared
    /// then red, 0...262143), as unsigned 32-bit values.
    case ppg

    /// Channels a block of this sensor may have.
    public var allowedChannels: ClosedRange<Int> { self == .accelerometer ? 3 ... 3 : 1 ... 3 }
    /// The range of one value.
    public var valueRange: ClosedRange<Int64> { self == .accelerometer ? -32_768 ... 32_767 : 0 ... Int64(Int32.max) }
}

/// Consecutive raw samples of one sensor during a session, kept for research when the wearer
/// consents (setting `consent_raw_capture`): the samples the band's step counter and
/// heart-rate estimator took in, in fixed point.
///
/// Time is implied: sample `i` was taken at `startMilliseconds + i × 1 000 000 / rateMillihertz`
/// milliseconds after the session began (band time). A gap in the sensor's data, or a block
/// being full, starts a new block.
public struct RawBlock: Codable, Equatable, Sendable {
    public var sensor: RawSensor
    /// The first sample's time, milliseconds since the session began (0...172 800 000).
    public var startMilliseconds: Int
    /// The samples' rate as measured over the block, millihertz (50 Hz is 50 000).
    public var rateMillihertz: Int
    /// Values per sample (`RawSensor.allowedChannels`).
    public var channels: Int
    /// The samples' values, channel by channel within a sample (x, y, z, x, y, z, ...):
    /// accelerometer in mg, PPG in ADC counts.
    public var values: [Int32]

    public init(sensor: RawSensor, startMilliseconds: Int, rateMillihertz: Int, channels: Int, values: [Int32]) {
        self.sensor = sensor
        self.startMilliseconds = startMilliseconds
        self.rateMillihertz = rateMillihertz
        self.channels = channels
        self.values = values
    }

    public var sampleCount: Int { channels > 0 ? values.count / channels : 0 }

    /// Sample `index`'s time, seconds since the session began.
    public func timeSeconds(ofSample index: Int) -> Double {
        Double(startMilliseconds) / 1000 + Double(index) * 1000 / Double(max(1, rateMillihertz))
    }

    /// Largest block, samples (a block holds a few seconds; this is 20 s at 3200 Hz).
    public static let maximumSamples = 65_536
    /// Rates a block may have, millihertz (1 Hz to 10 kHz).
    public static let rateRangeMillihertz = 1_000 ... 10_000_000
    /// Latest start, milliseconds (two days).
    public static let maximumStartMilliseconds = 172_800_000

    /// Whether the block is within what the stores and the link carry (checked before it is
    /// kept or sent).
    public var isValid: Bool {
        sensor.allowedChannels.contains(channels) && values.count % channels == 0
            && (1 ... Self.maximumSamples).contains(sampleCount)
            && Self.rateRangeMillihertz.contains(rateMillihertz)
            && (0 ... Self.maximumStartMilliseconds).contains(startMilliseconds)
            && values.allSatisfy { sensor.valueRange.contains(Int64($0)) }
    }

    /// Bytes of one value in the stores: 2 (mg) or 4 (counts).
    public var storedBytesPerValue: Int { sensor == .accelerometer ? 2 : 4 }
}

extension Array where Element == RawBlock {
    /// Samples of `sensor` in these blocks.
    public func sampleCount(of sensor: RawSensor) -> Int {
        reduce(0) { $0 + ($1.sensor == sensor ? $1.sampleCount : 0) }
    }
}
