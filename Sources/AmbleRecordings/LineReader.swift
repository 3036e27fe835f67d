import AmbleLinux
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a text file line by line in constant memory, counting lines from 1.
/// Accepts LF and CRLF endings.
public struct LineReader: IteratorProtocol, Sequence {
    public let path: String
    private var data: Data
    private var position: Int = 0
    public private(set) var lineNumber = 0

    public init(path: String) throws(RecordingError) {
        self.path = path
        do {
            // Recordings are at most tens of megabytes: mapping them keeps memory flat.
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            let problem = PathProblem.reading(path)
            throw RecordingError(file: path, line: nil, message: problem?.sentence(given: path) ?? "cannot be read: \(error)")
        }
    }

    /// Reads from text already in memory (tests, stdin).
    public init(text: String, name: String) {
        path = name
        data = Data(text.utf8)
    }

    public mutating func next() -> Substring? {
        guard position < data.count else { return nil }
        let newline = data[position...].firstIndex(of: UInt8(ascii: "\n")) ?? data.count
        var end = newline
        if end > position && data[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        var start = position
        // A UTF-8 byte-order mark (spreadsheets write one) is not part of the header.
        if lineNumber == 0 && end - start >= 3 && data[start] == 0xEF && data[start + 1] == 0xBB && data[start + 2] == 0xBF {
            start += 3
        }
        let line = String(decoding: data[start..<end], as: UTF8.self)
        position = newline + 1
        lineNumber += 1
        return Substring(line)
    }
}
