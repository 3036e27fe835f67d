/// Text for people, as the commands and the reports write it: columns padded, distances in m
/// or km, durations as M:SS or H:MM:SS, one decimal.
public enum SessionText {
    public static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    public static func formatDistance(_ meters: Double) -> String {
        meters >= 1000 ? "\(formatOne(meters / 1000)) km" : "\(Int(meters.rounded())) m"
    }
}

public func formatOne(_ value: Double) -> String {
    let tenths = (value * 10).rounded()
    let whole = Int(tenths / 10)
    let fraction = Int(abs(tenths).truncatingRemainder(dividingBy: 10))
    return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
}

public func formatDuration(_ seconds: Double) -> String {
    // Negative only for a session an older band dated across a move of its date back.
    let total = abs(Int(seconds.rounded()))
    let h = total / 3600, m = (total % 3600) / 60, s = total % 60
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return (seconds <= -0.5 ? "-" : "") + (h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))")
}
