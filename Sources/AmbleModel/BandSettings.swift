/// The band's settings a companion may read and write (`amble band settings`), each with its
/// allowed values. Stored on the band as text, one row per key; the band applies them (the
/// wearer's menu changes the same values).
public enum BandSetting: String, CaseIterable, Sendable, Codable {
    /// How much slower than the calibrated pace a mindful walk asks for, per cent.
    case reductionPercent = "reduction_percent"
    /// How long a calibration walk measures, seconds.
    case calibrationSeconds = "calibration_seconds"
    /// How the band says "too fast": three firm pulses, one gentle pulse, or the screen only.
    case alertStyle = "alert_style"
    /// A gentle pulse at the limit pace during mindful walks, steps per minute between pulses
    /// being the limit: on or off.
    case metronome
    /// Consent to heart rate: off puts the PPG sensor in shutdown and stores nothing of it.
    case consentHeartRate = "consent_heart_rate"
    /// Consent to raw sensor capture (a session's accelerometer and PPG samples, for research).
    case consentRawCapture = "consent_raw_capture"
    /// A daily reminder to take a mindful walk: a time of day (HH:MM, band clock) or off.
    case reminder
    /// The wearer's height, cm (step length before calibration).
    case heightCentimeters = "height_cm"
    /// The wearer's weight, kg (active energy).
    case weightKilograms = "weight_kg"
    /// The band's name, shown by `amble bands` and in sessions.
    case bandName = "band_name"
    /// Synced sessions older than this many days are removed from the band.
    case retentionDays = "retention_days"

    /// The value a fresh band has.
    public var defaultValue: String {
        switch self {
        case .reductionPercent: return "20"
        case .calibrationSeconds: return "60"
        case .alertStyle: return "firm"
        case .metronome: return "off"
        case .consentHeartRate: return "on"
        case .consentRawCapture: return "off"
        case .reminder: return "off"
        case .heightCentimeters: return "170"
        case .weightKilograms: return "70"
        case .bandName: return "Amble band"
        case .retentionDays: return "30"
        }
    }

    /// What may be set, in words (for errors and `--help`).
    public var allowed: String {
        switch self {
        case .reductionPercent: return "10, 15, 20, 25, 30, 35 or 40"
        case .calibrationSeconds: return "a whole number of seconds from 30 to 300"
        case .alertStyle: return "firm, gentle or silent"
        case .metronome: return "on or off"
        case .consentHeartRate, .consentRawCapture: return "on or off"
        case .reminder: return "off, or a time of day as HH:MM (00:00 to 23:59)"
        case .heightCentimeters: return "a whole number of centimetres from 100 to 230"
        case .weightKilograms: return "a whole number of kilograms from 25 to 250"
        case .bandName: return "1 to 32 characters, letters, digits, spaces, - and _"
        case .retentionDays: return "a whole number of days from 1 to 365"
        }
    }

    /// The value in its canonical form, or an error that says what is allowed.
    public func validate(_ raw: String) throws(BandSettingError) -> String {
        let value = raw.trimmingWhitespace()
        func integer(_ range: ClosedRange<Int>) throws(BandSettingError) -> String {
            guard let n = Int(value), range.contains(n) else { throw BandSettingError(setting: self, value: raw) }
            return String(n)
        }
        func oneOf(_ choices: [String]) throws(BandSettingError) -> String {
            guard choices.contains(value.lowercased()) else { throw BandSettingError(setting: self, value: raw) }
            return value.lowercased()
        }
        switch self {
        case .reductionPercent:
            let text = try integer(10 ... 40)
            guard Int(text)! % 5 == 0 else { throw BandSettingError(setting: self, value: raw) }
            return text
        case .calibrationSeconds: return try integer(30 ... 300)
        case .alertStyle: return try oneOf(["firm", "gentle", "silent"])
        case .metronome, .consentHeartRate, .consentRawCapture: return try oneOf(["on", "off"])
        case .reminder:
            if value.lowercased() == "off" { return "off" }
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count <= 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
                  (0 ... 23).contains(h), (0 ... 59).contains(m) else { throw BandSettingError(setting: self, value: raw) }
            return (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
        case .heightCentimeters: return try integer(100 ... 230)
        case .weightKilograms: return try integer(25 ... 250)
        case .bandName:
            let allowed = value.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0" ... "9").contains($0) || $0 == " " || $0 == "-" || $0 == "_" }
            // 32 characters and 64 UTF-8 bytes at most: the link carries names up to 64 bytes.
            guard (1 ... 32).contains(value.count), value.utf8.count <= 64, allowed else { throw BandSettingError(setting: self, value: raw) }
            return value
        case .retentionDays: return try integer(1 ... 365)
        }
    }
}

public struct BandSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var setting: BandSetting
    public var value: String
    public var description: String {
        "\(setting.rawValue): \"\(value)\" is not allowed; expected \(setting.allowed)"
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
