import AmbleModel
import CZlib

/// A whole session as the band sends it: a compact, versioned encoding of its summary and
/// seconds, compressed with zlib (docs/protocol.md, "Session data").
///
/// The seconds go column by column (all steps, then all cadences, ...), each in fixed point and
/// as differences from the second before, which is what makes a walk compress to a few bytes a
/// second: a cadence to 0.1 step/min, a heart rate to 0.1 bpm, a confidence to 0.01. The
/// summary keeps full precision.
public enum SessionCoding {
    /// The encoding's version (the first byte). Version 2 added pauses (a flag per second) and
    /// the summary's maximum heart rate, walking seconds and pauses; version 1 is still read.
    public static let version: UInt8 = 2
    /// Largest uncompressed session accepted, bytes: a day of seconds is under 1 MB.
    public static let maximumRawLength = 16 << 20
    /// Longest session accepted, seconds (two days).
    public static let maximumSeconds = 172_800

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
        let raw = w.bytes
        var out = BinaryWriter(capacity: raw.count / 2 + 16)
        out.byte(version)
        out.varint(raw.count)
        out.raw(compress(raw))
        return out.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(CodingError) -> SessionRecord {
        var outer = BinaryReader(bytes)
        let v = try outer.byte()
        guard v == 1 || v == version else { throw .malformed("session data version \(v); this side reads 1 and \(version): update the older side", at: 0) }
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
        try r.finish()
        return SessionRecord(summary: summary, seconds: seconds)
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
        return SessionRecord(summary: s, seconds: seconds)
    }

    static func tenths(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        return Int64(max(-1e9, min(1e9, (value * 10).rounded())))
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
