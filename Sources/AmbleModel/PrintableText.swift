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
        out.append(isUnsafeToPrint(scalar) ? "?" : scalar)
        count += 1
    }
    return String(out)
}

/// Whether `text` prints as it is: `printableText` would change none of it (any letter,
/// digit, punctuation, symbol or space of any script; no control or format character).
public func isPrintable<Text: StringProtocol>(_ text: Text) -> Bool {
    !text.unicodeScalars.contains(where: isUnsafeToPrint)
}

/// Control and format characters (escape sequences, bells, line breaks, bidirectional
/// overrides), unassigned and private-use code points, and invalid bytes' replacement mark.
private func isUnsafeToPrint(_ scalar: Unicode.Scalar) -> Bool {
    let category = scalar.properties.generalCategory
    return category == .control || category == .format || category == .unassigned || category == .privateUse
        || category == .surrogate || scalar == "\u{FFFD}"
}
