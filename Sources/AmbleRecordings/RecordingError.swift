/// Bad input in a recording, naming the file, the line and what to do.
public struct RecordingError: Error, Equatable, CustomStringConvertible, Sendable {
    public var file: String
    /// 1-based line number, or nil for errors about the file as a whole.
    public var line: Int?
    public var message: String

    public init(file: String, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        if let line { return "\(file):\(line): \(message)" }
        return "\(file): \(message)"
    }
}
