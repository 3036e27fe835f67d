import AmbleModel

/// Raw capture for research (setting `consent_raw_capture`): the accelerometer's and the
/// PPG's samples of a session, as the signal pipeline takes them in, gathered into blocks of a
/// few seconds that the band stores as they finish.
///
/// A value: samples with their band time in, finished blocks out; no I/O, no clock. Memory is
/// bounded: a block is finished after `blockSeconds` and taken by the band every second, and
/// past `maximumBytes` per session nothing more is taken (`capReached`).
struct RawSampleCapture {
    /// Band time the session began, seconds: blocks count their start from it.
    let sessionStartSeconds: Double
    /// Most bytes of samples kept for one session, as stored (6 bytes an accelerometer sample,
    /// 4 a PPG value): 8 MiB, about 2 h with the PPG's two channels at 100 Hz and the
    /// accelerometer at 50 Hz (1 100 bytes a second), about 7.7 h of the accelerometer alone.
    let maximumBytes: Int
    /// A block is finished once it spans this long, seconds.
    static let blockSeconds = 5.0
    static let defaultMaximumBytes = 8 << 20

    /// Bytes of samples taken so far (as stored).
    private(set) var bytesTaken = 0
    /// The cap was reached: no sample is taken any more in this session.
    private(set) var capReached = false
    /// The band has said so in its log.
    var capReported = false
    /// Samples taken, per sensor.
    private(set) var samplesTaken: [RawSensor: Int] = [:]

    private struct OpenBlock {
        var firstSeconds: Double
        var lastSeconds: Double
        var nominalRateHz: Double
        var channels: Int
        var values: [Int32]
        var count: Int { values.count / channels }
    }

    private var open: [RawSensor: OpenBlock] = [:]
    private var finished: [RawBlock] = []

    init(sessionStartSeconds: Double, maximumBytes: Int = RawSampleCapture.defaultMaximumBytes) {
        self.sessionStartSeconds = sessionStartSeconds
        self.maximumBytes = maximumBytes
    }

    /// An accelerometer sample at band time `seconds`, in g, from a sensor at `rateHz`.
    mutating func addAcceleration(atSeconds seconds: Double, xG: Double, yG: Double, zG: Double, rateHz: Double) {
        add(.accelerometer, atSeconds: seconds, rateHz: rateHz, bytes: 6, Self.milliG(xG), Self.milliG(yG), Self.milliG(zG))
    }

    /// A PPG sample at band time `seconds`: infrared and red ADC counts, from a sensor at `rateHz`.
    mutating func addPPG(atSeconds seconds: Double, infrared: UInt32, red: UInt32, rateHz: Double) {
        add(.ppg, atSeconds: seconds, rateHz: rateHz, bytes: 8, Int32(clamping: infrared), Int32(clamping: red))
    }

    /// The blocks finished since the last call (oldest first).
    mutating func takeFinishedBlocks() -> [RawBlock] {
        defer { finished.removeAll(keepingCapacity: true) }
        return finished
    }

    /// Every block, the open ones finished: the session ends.
    mutating func finishAll() -> [RawBlock] {
        for sensor in RawSensor.allCases { finish(sensor) }
        return takeFinishedBlocks()
    }

    // MARK: Blocks

    /// g to mg, rounded and clamped to 16 bits.
    static func milliG(_ g: Double) -> Int32 {
        guard g.isFinite else { return 0 }
        return Int32(max(-32_768, min(32_767, (g * 1000).rounded())))
    }

    private mutating func add(_ sensor: RawSensor, atSeconds seconds: Double, rateHz: Double, bytes: Int, _ values: Int32...) {
        guard !capReached, seconds >= sessionStartSeconds, rateHz > 0 else { return }
        guard bytesTaken + bytes <= maximumBytes else {
            capReached = true
            return
        }
        if let block = open[sensor] {
            // A gap (more than three periods without a sample), a full block, or another rate
            // or shape: the block ends here.
            if seconds - block.lastSeconds > 3 / rateHz || seconds - block.firstSeconds >= Self.blockSeconds
                || block.count >= RawBlock.maximumSamples || block.nominalRateHz != rateHz || block.channels != values.count {
                finish(sensor)
            }
        }
        if open[sensor] == nil {
            var held = [Int32]()
            held.reserveCapacity(min(RawBlock.maximumSamples, Int(rateHz * Self.blockSeconds) + 2) * values.count)
            open[sensor] = OpenBlock(firstSeconds: seconds, lastSeconds: seconds, nominalRateHz: rateHz, channels: values.count, values: held)
        }
        open[sensor]!.values += values
        open[sensor]!.lastSeconds = seconds
        bytesTaken += bytes
        samplesTaken[sensor, default: 0] += 1
    }

    private mutating func finish(_ sensor: RawSensor) {
        guard let block = open.removeValue(forKey: sensor), block.count > 0 else { return }
        // The rate as measured over the block, unless it is implausible (a single sample, or
        // times jumbled by a late read): then the sensor's own.
        var rate = block.nominalRateHz
        let span = block.lastSeconds - block.firstSeconds
        if block.count >= 2, span > 0 {
            let measured = Double(block.count - 1) / span
            if measured > rate * 0.8 && measured < rate * 1.25 { rate = measured }
        }
        let start = Int(((block.firstSeconds - sessionStartSeconds) * 1000).rounded())
        let rateMillihertz = Int((rate * 1000).rounded())
        let raw = RawBlock(sensor: sensor, startMilliseconds: max(0, min(RawBlock.maximumStartMilliseconds, start)),
                           rateMillihertz: max(RawBlock.rateRangeMillihertz.lowerBound, min(RawBlock.rateRangeMillihertz.upperBound, rateMillihertz)),
                           channels: block.channels, values: block.values)
        finished.append(raw)
    }
}
