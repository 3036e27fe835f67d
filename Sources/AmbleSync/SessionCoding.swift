import AmbleModel
import CZlib

/// A whole session as the band sends it: a compact, versioned encoding of its summary and
/// seconds, compressed with zlib (docs/protocol.md, "Session data").
///
/// The seconds go column by column (all steps, then all cadences, ...), each in fixed point and
/// as differences from the second before, which is what makes a walk compress to a few bytes a
/// second: a cadence to 0.1 step/min, a heart rate to 0.1 bpm, a confidence to 0.01. The
/// summary keeps full precision. Raw sensor samples, when the session has them, follow the
/// seconds (version 3): block by block, each channel as differences from the sample before.
public enum SessionCoding {
    /// The encoding's newest version (the first byte). Version 2 added pauses (a flag per
    /// second) and the summary's maximum heart rate, walking seconds and pauses; version 3 adds
    /// the raw samples after the seconds. A session without raw samples is written as version
    /// 2, byte for byte as before, so that a laptop that reads only 1 and 2 still syncs it.
    /// Versions 1 and 2 are still read.
    public static let version: UInt8 = 3
    /// The versions this build writes (the band encodes again data of any other).
    public static let currentVersions: [UInt8] = [2, 3]
    /// Largest uncompressed session accepted, bytes: a day of seconds is under 1 MB.
    public static let maximumRawLength = 16 << 20
    /// Longest session accepted, seconds (two days).
    public static let maximumSeconds = 172_800
    /// Most raw blocks in a session.
    public static let maximumRawBlocks = 100_000
    /// Most raw values (a sample has one per channel) in a session: 4 Mi, what the band's cap
    /// of 8 MiB of stored raw samples holds at most (accelerometer values take 2 bytes there).
    public static let maximumRawValues = 4 << 20

    public static func encode(_ unchecked: SessionRecord) -> [UInt8] {
        let record = sanitized(unchecked)
        var w = BinaryWriter(capacity: 64 + record.seconds.count * 8)
        writeSummary(record.summary, into: &w)
        let seconds = record.seconds
        w.varint(seconds.count)
        var previousOffset = -1
        for s in seconds {
            w.varint(s.offsetSeconds - previousOffset - 1)   // 0 for consecutive seconds
            previousOffset = s.offsetSeconds
        }
        for s in seconds { w.varint(s.steps) }
        var previous: Int64 = 0
        for s in seconds {
            let v = tenths(s.cadenceStepsPerMinute)
            w.signed(v - previous)
            previous = v
        }
        for s in seconds {
            w.byte((s.heartRateBPM != nil ? 1 : 0) | (s.overLimit ? 2 : 0) | (s.accelerometerGap ? 4 : 0) | (s.heartRateGap ? 8 : 0)
                   | (s.heartRateConfidence != nil ? 16 : 0) | (s.paused ? 32 : 0))
        }
        previous = 0
        for s in seconds {
            guard let bpm = s.heartRateBPM else { continue }
            let v = tenths(bpm)
            w.signed(v - previous)
            previous = v
        }
        for s in seconds {
            guard let confidence = s.heartRateConfidence else { continue }
            w.byte(UInt8(max(0, min(100, (confidence * 100).rounded()))))
        }
        for s in seconds { w.varint(s.alerts) }
        let written: UInt8
        if record.raw.isEmpty {
            written = 2
        } else {
            written = 3
            writeRaw(record.raw, into: &w)
        }
        let raw = w.bytes
        var out = BinaryWriter(capacity: raw.count / 2 + 16)
        out.byte(written)
        out.varint(raw.count)
        out.raw(compress(raw))
        return out.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(CodingError) -> SessionRecord {
        var outer = BinaryReader(bytes)
        let v = try outer.byte()
        guard (1 ... version).contains(v) else { throw .malformed("session data version \(v); this side reads 1 to \(version): update the older side", at: 0) }
        let rawLength = try outer.count(limit: maximumRawLength)
        let raw = try decompress(try outer.raw(outer.remaining), expectedLength: rawLength)
        var r = BinaryReader(raw)
        let summary = try readSummary(&r, version: v)
        let count = try r.count(limit: maximumSeconds)
        var seconds = [SessionSecond](repeating: SessionSecond(offsetSeconds: 0, steps: 0, cadenceStepsPerMinute: 0), count: count)
        var offset = -1
        for i in 0 ..< count {
            offset += try r.count(limit: maximumSeconds) + 1
            guard offset <= maximumSeconds else { throw .malformed("a second beyond two days", at: r.position) }
            seconds[i].offsetSeconds = offset
        }
        for i in 0 ..< count { seconds[i].steps = try r.count(limit: 1000) }
        var previous: Int64 = 0
        for i in 0 ..< count {
            previous &+= try r.signed()
            seconds[i].cadenceStepsPerMinute = Double(previous) / 10
        }
        var flags = [UInt8](repeating: 0, count: count)
        for i in 0 ..< count {
            flags[i] = try r.byte()
            seconds[i].overLimit = flags[i] & 2 != 0
            seconds[i].accelerometerGap = flags[i] & 4 != 0
            seconds[i].heartRateGap = flags[i] & 8 != 0
            seconds[i].paused = flags[i] & 32 != 0
        }
        previous = 0
        for i in 0 ..< count where flags[i] & 1 != 0 {
            previous &+= try r.signed()
            seconds[i].heartRateBPM = Double(previous) / 10
        }
        for i in 0 ..< count where flags[i] & 16 != 0 {
            seconds[i].heartRateConfidence = Double(try r.byte()) / 100
        }
        for i in 0 ..< count { seconds[i].alerts = try r.count(limit: 1000) }
        let rawBlocks = v >= 3 ? try readRaw(&r) : []
        try r.finish()
        return SessionRecord(summary: summary, seconds: seconds, raw: rawBlocks)
    }

    /// The record as it arrives on the other side: the seconds' values in the coding's fixed
    /// point (what `decode(encode(record))` gives).
    public static func quantized(_ record: SessionRecord) -> SessionRecord {
        var copy = sanitized(record)
        for i in copy.seconds.indices {
            copy.seconds[i].cadenceStepsPerMinute = Double(tenths(copy.seconds[i].cadenceStepsPerMinute)) / 10
            copy.seconds[i].heartRateBPM = copy.seconds[i].heartRateBPM.map { Double(tenths($0)) / 10 }
            copy.seconds[i].heartRateConfidence = copy.seconds[i].heartRateConfidence.map { max(0, min(100, ($0 * 100).rounded())) / 100 }
        }
        return copy
    }

    /// The record within what the coding carries and the decoder accepts, so that every stored
    /// session can be sent: seconds in increasing order without repeats and within two days,
    /// counts within their limits, finite values (a value that is not finite is dropped, or 0
    /// where one is required). The band never records anything outside these; a damaged store
    /// might.
    static func sanitized(_ record: SessionRecord) -> SessionRecord {
        var seconds: [SessionSecond] = []
        seconds.reserveCapacity(record.seconds.count)
        for var second in record.seconds.sorted(by: { $0.offsetSeconds < $1.offsetSeconds })
        where second.offsetSeconds >= 0 && second.offsetSeconds <= maximumSeconds && second.offsetSeconds != seconds.last?.offsetSeconds {
            second.steps = max(0, min(1000, second.steps))
            second.alerts = max(0, min(1000, second.alerts))
            if !second.cadenceStepsPerMinute.isFinite { second.cadenceStepsPerMinute = 0 }
            if second.heartRateBPM?.isFinite == false { second.heartRateBPM = nil }
            if second.heartRateConfidence?.isFinite == false { second.heartRateConfidence = nil }
            seconds.append(second)
        }
        var s = record.summary
        func finite(_ value: Double) -> Double { value.isFinite ? value : 0 }
        func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
        s.startUnixSeconds = finite(s.startUnixSeconds)
        s.endUnixSeconds = finite(s.endUnixSeconds)
        s.parameters.calibratedCadenceStepsPerMinute = finite(s.parameters.calibratedCadenceStepsPerMinute)
        s.parameters.limitCadenceStepsPerMinute = finite(s.parameters.limitCadenceStepsPerMinute)
        s.parameters.stepLengthMeters = finite(s.parameters.stepLengthMeters)
        s.steps = max(0, min(10_000_000, s.steps))
        s.distanceMeters = finite(s.distanceMeters)
        s.averageHeartRateBPM = finite(s.averageHeartRateBPM)
        s.alerts = max(0, min(1_000_000, s.alerts))
        s.timeOverLimitSeconds = max(0, min(maximumSeconds, s.timeOverLimitSeconds))
        s.gapSeconds = max(0, min(maximumSeconds, s.gapSeconds))
        s.rmssdMilliseconds = finite(s.rmssdMilliseconds)
        s.measuredCadenceStepsPerMinute = finite(s.measuredCadenceStepsPerMinute)
        s.activeKilocalories = finite(s.activeKilocalories)
        s.maximumHeartRateBPM = finite(s.maximumHeartRateBPM)
        s.walkingSeconds = s.walkingSeconds.map { max(0, min(maximumSeconds, $0)) }
        s.pauses = max(0, min(maximumSeconds, s.pauses))
        s.pausedSeconds = max(0, min(maximumSeconds, s.pausedSeconds))
        // Raw blocks: the valid ones, within the limits on their count, their values and the
        // uncompressed length (the seconds take at most about 4 MB of it).
        var raw: [RawBlock] = []
        var values = 0, bytes = 0
        for block in record.raw where block.isValid {
            let size = rawBlockBytes(block).count
            guard raw.count < maximumRawBlocks, values + block.values.count <= maximumRawValues,
                  bytes + size <= maximumRawLength - 8 * maximumSeconds * 3 else { break }
            raw.append(block)
            values += block.values.count
            bytes += size
        }
        return SessionRecord(summary: s, seconds: seconds, raw: raw)
    }

    static func tenths(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        return Int64(max(-1e9, min(1e9, (value * 10).rounded())))
    }

    // MARK: Raw samples

    /// The raw section (version 3): the number of blocks, then each block.
    static func writeRaw(_ blocks: [RawBlock], into w: inout BinaryWriter) {
        w.varint(blocks.count)
        for block in blocks { w.raw(rawBlockBytes(block)) }
    }

    /// One block: sensor (1 accelerometer, 2 PPG), start (ms), rate (mHz), channels, samples,
    /// then channel by channel the first value and the differences from the sample before
    /// (zigzag).
    static func rawBlockBytes(_ block: RawBlock) -> [UInt8] {
        var w = BinaryWriter(capacity: 16 + block.values.count * 2)
        w.byte(block.sensor == .accelerometer ? 1 : 2)
        w.varint(block.startMilliseconds)
        w.varint(block.rateMillihertz)
        w.byte(UInt8(block.channels))
        let n = block.sampleCount
        w.varint(n)
        for c in 0 ..< block.channels {
            var previous: Int64 = 0
            for i in 0 ..< n {
                let value = Int64(block.values[i * block.channels + c])
                w.signed(value - previous)
                previous = value
            }
        }
        return w.bytes
    }

    static func readRaw(_ r: inout BinaryReader) throws(CodingError) -> [RawBlock] {
        let count = try r.count(limit: maximumRawBlocks)
        var blocks: [RawBlock] = []
        var totalValues = 0
        for _ in 0 ..< count {
            let at = r.position
            let sensor: RawSensor
            switch try r.byte() {
            case 1: sensor = .accelerometer
            case 2: sensor = .ppg
            case let other: throw .malformed("raw block of sensor \(other)", at: at)
            }
            let start = try r.count(limit: RawBlock.maximumStartMilliseconds)
            let rate = try r.count(limit: RawBlock.rateRangeMillihertz.upperBound)
            guard rate >= RawBlock.rateRangeMillihertz.lowerBound else { throw .malformed("raw block rate \(rate) mHz", at: r.position) }
            let channels = Int(try r.byte())
            guard sensor.allowedChannels.contains(channels) else { throw .malformed("\(sensor.rawValue) block of \(channels) channels", at: r.position - 1) }
            let n = try r.count(limit: RawBlock.maximumSamples)
            // Every value takes at least a byte: a block cannot claim more than is left.
            guard n > 0, n * channels <= r.remaining else { throw .truncated(at: r.position) }
            totalValues += n * channels
            guard totalValues <= maximumRawValues else { throw .malformed("more than \(maximumRawValues) raw values", at: r.position) }
            var values = [Int32](repeating: 0, count: n * channels)
            let range = sensor.valueRange
            for c in 0 ..< channels {
                var value: Int64 = 0
                for i in 0 ..< n {
                    let (sum, overflow) = value.addingReportingOverflow(try r.signed())
                    guard !overflow, range.contains(sum) else { throw .malformed("a raw \(sensor.rawValue) value outside \(range)", at: r.position) }
                    value = sum
                    values[i * channels + c] = Int32(value)
                }
            }
            blocks.append(RawBlock(sensor: sensor, startMilliseconds: start, rateMillihertz: rate, channels: channels, values: values))
        }
        return blocks
    }

    // MARK: Summary

    static func writeSummary(_ s: SessionSummary, into w: inout BinaryWriter, version: UInt8 = version) {
        w.byte(s.kind == .calibration ? 0 : 1)
        w.double(s.startUnixSeconds)
        w.double(s.endUnixSeconds)
        w.optional(s.parameters.calibratedCadenceStepsPerMinute) { $0.double($1) }
        w.optional(s.parameters.reductionPercent) { $0.signed(Int64($1)) }
        w.optional(s.parameters.limitCadenceStepsPerMinute) { $0.double($1) }
        w.double(s.parameters.stepLengthMeters)
        w.varint(s.steps)
        w.double(s.distanceMeters)
        w.optional(s.averageHeartRateBPM) { $0.double($1) }
        w.varint(s.alerts)
        w.varint(s.timeOverLimitSeconds)
        w.varint(s.gapSeconds)
        w.optional(s.rmssdMilliseconds) { $0.double($1) }
        w.optional(s.measuredCadenceStepsPerMinute) { $0.double($1) }
        w.optional(s.activeKilocalories) { $0.double($1) }
        guard version >= 2 else { return }
        w.optional(s.maximumHeartRateBPM) { $0.double($1) }
        w.optional(s.walkingSeconds) { $0.varint($1) }
        w.varint(s.pauses)
        w.varint(s.pausedSeconds)
    }

    static func readSummary(_ r: inout BinaryReader, version: UInt8 = version) throws(CodingError) -> SessionSummary {
        let kind: SessionKind
        switch try r.byte() {
        case 0: kind = .calibration
        case 1: kind = .mindfulWalk
        case let other: throw .malformed("session kind \(other)", at: r.position - 1)
        }
        let start = try r.finiteDouble(), end = try r.finiteDouble()
        let calibrated = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.finiteDouble() }
        let reduction = try r.optional { (r: inout BinaryReader) throws(CodingError) in Int(clamping: try r.signed()) }
        let limit = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.finiteDouble() }
        let stepLength = try r.finiteDouble()
        let steps = try r.count(limit: 10_000_000)
        let distance = try r.finiteDouble()
        let heartRate = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.finiteDouble() }
        let alerts = try r.count(limit: 1_000_000)
        let overLimit = try r.count(limit: maximumSeconds)
        let gaps = try r.count(limit: maximumSeconds)
        let rmssd = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.finiteDouble() }
        let measured = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.finiteDouble() }
        let energy = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.finiteDouble() }
        var maximum: Double?, walking: Int?, pauses = 0, paused = 0
        if version >= 2 {
            maximum = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.finiteDouble() }
            walking = try r.optional { (r: inout BinaryReader) throws(CodingError) in try r.count(limit: maximumSeconds) }
            pauses = try r.count(limit: maximumSeconds)
            paused = try r.count(limit: maximumSeconds)
        }
        return SessionSummary(
            kind: kind, startUnixSeconds: start, endUnixSeconds: end,
            parameters: SessionParameters(calibratedCadenceStepsPerMinute: calibrated, reductionPercent: reduction,
                                          limitCadenceStepsPerMinute: limit, stepLengthMeters: stepLength),
            steps: steps, distanceMeters: distance, averageHeartRateBPM: heartRate, alerts: alerts,
            timeOverLimitSeconds: overLimit, gapSeconds: gaps, rmssdMilliseconds: rmssd,
            measuredCadenceStepsPerMinute: measured, activeKilocalories: energy,
            maximumHeartRateBPM: maximum, walkingSeconds: walking, pauses: pauses, pausedSeconds: paused)
    }

    // MARK: zlib

    static func compress(_ input: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { inp in
                compress2(out.baseAddress, &length, inp.baseAddress, uLong(input.count), Z_BEST_COMPRESSION)
            }
        }
        precondition(status == Z_OK, "zlib compress2 failed with \(status) on an output sized by compressBound")
        output.removeLast(output.count - Int(length))
        return output
    }

    static func decompress(_ input: [UInt8], expectedLength: Int) throws(CodingError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(1, expectedLength))
        var length = uLong(expectedLength)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { inp in
                uncompress(out.baseAddress, &length, inp.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(length) == expectedLength else {
            throw .compression(status == Z_BUF_ERROR ? "longer than it said" : status == Z_DATA_ERROR ? "corrupt" : "zlib status \(status)")
        }
        if expectedLength == 0 { output.removeAll() }
        return output
    }
}
