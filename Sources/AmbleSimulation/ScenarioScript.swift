import AmbleLinux
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A scripted scenario for the simulated board: the wearer's button presses and what their
/// body does, at band times.
///
///     # comments and blank lines are ignored
///     0:02   press select        # short press (next, select or back)
///     +3     walk 112            # walk at 112 steps/min ("+N" is N s after the previous line)
///     +65    stop                # stand still
///     +1     hold select 1.5     # hold a button for 1.5 s (a long press)
///     +0     hr 72               # resting heart rate, bpm
///     +0     wrist off           # band off the wrist (wrist on to put it back)
///     +0     unplug accelerometer    # the sensor stops answering (plug ... brings it back)
///     +0     flaky heart-rate 0.2    # a fifth of its transfers fail with EIO (flaky ... 0 ends it)
///     +0     wedge accelerometer     # it answers every read with zeros: an empty FIFO, a
///                                    # wrong chip id (unwedge ... brings it back)
///     +0     stall heart-rate        # it answers as usual but samples nothing: its FIFO stays
///                                    # empty, even after a reset (unstall ... brings it back)
///     +0     answer yes          # the next question the band asks (pair? delete?) gets select
///                                # 1 s after it shows (answer no: back): the wearer checks the
///                                # code the laptop shows, or that the wipe is wanted
///     +5     end                 # the scenario is over (ambled says so; --exit-after-script exits)
///
/// Times: seconds (`12`, `12.5`), `m:ss` or `h:mm:ss`, or `+seconds` after the previous line.
public struct ScenarioScript: Equatable, Sendable {
    public enum Sensor: String, Equatable, Sendable {
        case accelerometer
        case heartRate = "heart-rate"
    }

    public enum Action: Equatable, Sendable {
        case press(role: String, holdSeconds: Double)
        case walk(cadenceStepsPerMinute: Double)
        case stop
        case restingHeartRate(bpm: Double)
        case wrist(worn: Bool)
        case unplug(Sensor)
        case plug(Sensor)
        /// This share (0 to 1) of the sensor's transfers fail with EIO, the others pass.
        case flaky(Sensor, share: Double)
        /// The sensor answers every read with zeros (a wedged chip), or answers again.
        case wedge(Sensor, wedged: Bool)
        /// The sensor answers as usual but no sample enters its FIFO (its sampling froze), or
        /// samples again.
        case stall(Sensor, stalled: Bool)
        /// The wearer answers the band's next question (pairing code, wipe) with select or back.
        case answer(yes: Bool)
        case end
    }

    public struct Step: Equatable, Sendable {
        /// Band seconds since start.
        public var timeSeconds: Double
        public var action: Action
        /// Line in the script file.
        public var line: Int
    }

    public var steps: [Step]

    /// A short press is held this long, seconds.
    public static let shortPressSeconds = 0.15

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var message: String
        /// Line 0: the file as a whole (it cannot be read).
        public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
    }

    /// The most a script may hold, bytes: 1 MiB (a scripted day of walks is a few kB).
    public static let maximumBytes = 1024 * 1024

    public static func load(path: String) throws -> ScenarioScript {
        let data: [UInt8]
        do {
            data = try readWholeFile(atPath: path, limitBytes: maximumBytes)
        } catch {
            throw ParseError(file: path, line: 0, message: error.sentence(given: path))
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    public static func parse(_ text: String, file: String) throws(ParseError) -> ScenarioScript {
        var steps: [Step] = []
        var previous = 0.0
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = index + 1
            let content = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let timeWord = words.first else { continue }
            func fail(_ message: String) -> ParseError { ParseError(file: file, line: lineNumber, message: message) }
            guard let time = parseTime(timeWord, previous: previous) else {
                throw fail("\"\(timeWord)\" is not a time; write seconds (12.5), m:ss, h:mm:ss or +seconds")
            }
            guard time >= previous else {
                throw fail("time \(timeWord) is before the previous line's; lines must be in time order")
            }
            guard words.count >= 2 else { throw fail("a time needs an action after it (press, hold, walk, stop, hr, wrist, unplug, plug, end)") }
            let arguments = Array(words.dropFirst(2))
            func number(_ i: Int, _ what: String, _ range: ClosedRange<Double>) throws(ParseError) -> Double {
                guard i < arguments.count, let value = Double(arguments[i]), range.contains(value) else {
                    throw fail("\(words[1]) needs \(what) (\(range.lowerBound)...\(range.upperBound))")
                }
                return value
            }
            func role(_ i: Int) throws(ParseError) -> String {
                guard i < arguments.count, ["next", "select", "back"].contains(arguments[i]) else {
                    throw fail("\(words[1]) needs a button: next, select or back")
                }
                return arguments[i]
            }
            func sensor(_ i: Int) throws(ParseError) -> Sensor {
                guard i < arguments.count, let sensor = Sensor(rawValue: arguments[i]) else {
                    throw fail("\(words[1]) needs a sensor: accelerometer or heart-rate")
                }
                return sensor
            }
            let action: Action
            switch words[1] {
            case "press": action = .press(role: try role(0), holdSeconds: shortPressSeconds)
            case "hold": action = .press(role: try role(0), holdSeconds: try number(1, "a hold time in seconds", 0.05...30))
            case "walk": action = .walk(cadenceStepsPerMinute: try number(0, "a cadence in steps/min", 30...220))
            case "stop": action = .stop
            case "hr": action = .restingHeartRate(bpm: try number(0, "a heart rate in bpm", 30...220))
            case "wrist":
                guard let state = arguments.first, state == "on" || state == "off" else { throw fail("wrist needs on or off") }
                action = .wrist(worn: state == "on")
            case "unplug": action = .unplug(try sensor(0))
            case "plug": action = .plug(try sensor(0))
            case "flaky": action = .flaky(try sensor(0), share: try number(1, "a share of failed transfers from 0 to 1", 0...1))
            case "wedge": action = .wedge(try sensor(0), wedged: true)
            case "unwedge": action = .wedge(try sensor(0), wedged: false)
            case "stall": action = .stall(try sensor(0), stalled: true)
            case "unstall": action = .stall(try sensor(0), stalled: false)
            case "answer":
                guard let word = arguments.first, word == "yes" || word == "no" else { throw fail("answer needs yes or no") }
                action = .answer(yes: word == "yes")
            case "end": action = .end
            default:
                throw fail("unknown action \"\(words[1])\"; use press, hold, walk, stop, hr, wrist, unplug, plug, flaky, wedge, unwedge, stall, unstall, answer or end")
            }
            steps.append(Step(timeSeconds: time, action: action, line: lineNumber))
            previous = time
        }
        return ScenarioScript(steps: steps)
    }

    static func parseTime(_ word: String, previous: Double) -> Double? {
        if word.hasPrefix("+") {
            guard let delta = Double(word.dropFirst()), delta >= 0 else { return nil }
            return previous + delta
        }
        let parts = word.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard let value = Double(part), value >= 0 else { return nil }
            if i > 0 && value >= 60 { return nil }
            total = total * 60 + value
        }
        return total
    }
}
