/// A board file that cannot be used, naming the file, line and key and what to do.
public struct BoardError: Error, Equatable, CustomStringConvertible, Sendable {
    public var file: String
    /// 1-based line of the offending key (or of its table) when known.
    public var line: Int?
    /// The key, written as in the file: `accelerometer.address`, `button[2].line`.
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var place = file
        if let line { place += ":\(line)" }
        if let key { return "\(place): \(key): \(message)" }
        return "\(place): \(message)"
    }
}
