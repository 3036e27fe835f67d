/// Text from a peer or a file made safe to print in a terminal: control and format characters
/// (escape sequences, bells, line breaks, invalid bytes' replacement marks) become `?`, and
/// text longer than `maximum` characters is cut with "…". Every error that quotes untrusted
/// text quotes it through this.
public func printableText<Text: StringProtocol>(_ text: Text, maximum: Int = 60) -> String {
    var out = String.UnicodeScalarView()
    var count = 0
    for scalar in text.unicodeScalars {
        guard count < maximum else {
            return String(String(out).dropLast()) + "…"
        }
        let category = scalar.properties.generalCategory
        let unsafe = category == .control || category == .format || category == .unassigned || category == .privateUse
            || category == .surrogate || scalar == "\u{FFFD}"
        out.append(unsafe ? "?" : scalar)
        count += 1
    }
    return String(out)
}
