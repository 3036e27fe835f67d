import AmbleLinux
import AmbleSync

/// How `ambled` was asked to run.
public struct BandOptions: Sendable {
    /// Where the band keeps its store (`band.sqlite`).
    public var dataDirectory: String
    /// Serve sessions over TCP here.
    public var listen: HostPort?
    /// Serve sessions over this serial device.
    public var serialPath: String?
    /// Baud rate of `serialPath`.
    public var serialBaudRate = 115_200
    /// Time speed-up of the simulated board (1 = real time).
    public var speed: Double = 1
    /// A scenario script for the simulated board.
    public var scriptPath: String?
    /// Stop when the script reaches `end`.
    public var exitAfterScript = false
    /// Read buttons from the keyboard (simulated board on a terminal).
    public var keyboard = true
    /// Stop cleanly on SIGTERM and SIGINT (off in tests that build several bands).
    public var watchSignals = true

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
    }

    /// `$XDG_DATA_HOME/ambled`, or `~/.local/share/ambled`.
    public static var defaultDataDirectory: String { userDataDirectory + "/ambled" }
}

/// A problem that stops the band from starting, said so that the reader knows what to do.
public struct BandStartError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
