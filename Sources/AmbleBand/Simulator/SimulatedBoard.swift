import AmbleEmulators
import AmbleHardware
import AmbleSimulation
import AmbleStateMachines

/// The simulated board's parts: the emulated bus and chips, the simulated GPIO lines, the
/// wearer feeding the chips, and what a script or the keyboard does to them.
public final class SimulatedBoard {
    /// Band time, advanced by the board's host (`SimulatedHost`) or a test.
    public let clock: ManualClock
    /// The accelerometer's bus.
    public let bus: EmulatedI2CBus
    /// Where each sensor sits and its emulated chip, for the scripted faults (`unplug`,
    /// `flaky`, `wedge`, `stall` ...).
    struct SensorPlace {
        var bus: EmulatedI2CBus
        var address: I2CAddress
        var chip: any StallableEmulator
    }
    let sensorPlaces: [ScenarioScript.Sensor: SensorPlace]
    public let synthetic: SyntheticWearer?
    public let motorLine: SimulatedGPIOOutput
    /// The emulated OLED, when the board has a display.
    public let displayPanel: SSD1306Emulator?
    /// The buttons' lines, by role (each bounces twice on a press: the debouncer must cope).
    public let buttonLines: [ButtonRole: SimulatedGPIOInput]
    /// The buttons' longest debounce time, seconds: a key's press is held, and the line left
    /// released, at least twice this long, so that the debouncer sees every press.
    let debounceSeconds: Double
    /// Band time at which the next key's press may begin: the previous key's press has been
    /// released and the line has settled.
    private var nextKeyPressSeconds = -Double.infinity

    init(clock: ManualClock, synthetic: SyntheticWearer?, motorLine: SimulatedGPIOOutput, displayPanel: SSD1306Emulator?,
         buttonLines: [ButtonRole: SimulatedGPIOInput], debounceSeconds: Double,
         accelerometer: SensorPlace, heartRate: SensorPlace?) {
        self.displayPanel = displayPanel
        self.debounceSeconds = debounceSeconds
        self.clock = clock
        bus = accelerometer.bus
        var places = [ScenarioScript.Sensor.accelerometer: accelerometer]
        if let heartRate { places[.heartRate] = heartRate }
        sensorPlaces = places
        self.synthetic = synthetic
        self.motorLine = motorLine
        self.buttonLines = buttonLines
    }

    /// Presses a button at band time `time` for `holdSeconds`.
    public func press(role: ButtonRole, atSeconds time: Double, holdSeconds: Double) -> Bool {
        guard let line = buttonLines[role] else { return false }
        line.schedulePress(atSeconds: time, holdSeconds: holdSeconds)
        return true
    }

    /// Applies one scripted action at band time `time`. Returns a note for the log, if any.
    func apply(_ action: ScenarioScript.Action, atSeconds time: Double) -> String? {
        switch action {
        case .press(let role, let hold):
            guard let button = ButtonRole(rawValue: role), press(role: button, atSeconds: time, holdSeconds: hold) else { return "this board has no \(role) button" }
            return nil
        case .walk(let cadence):
            guard let synthetic else { return "walk ignored: the board plays a recording" }
            synthetic.activity = .walking(cadenceStepsPerMinute: cadence)
            return nil
        case .stop:
            synthetic?.activity = .still
            return nil
        case .restingHeartRate(let bpm):
            synthetic?.restingHeartRateBPM = bpm
            return nil
        case .wrist(let worn):
            synthetic?.isWorn = worn
            return "band \(worn ? "back on" : "off") the wrist"
        case .unplug(let sensor):
            guard let place = sensorPlaces[sensor] else { return "no \(sensor.rawValue) on this board" }
            place.bus.unplug(place.address)
            return "\(sensor.rawValue) unplugged (simulated)"
        case .plug(let sensor):
            guard let place = sensorPlaces[sensor] else { return "no \(sensor.rawValue) on this board" }
            place.bus.plug(place.address)
            return "\(sensor.rawValue) plugged back in (simulated)"
        case .flaky(let sensor, let share):
            guard let place = sensorPlaces[sensor] else { return "no \(sensor.rawValue) on this board" }
            place.bus.setFlaky(place.address, share: share)
            return share > 0 ? "\(sensor.rawValue): \(Int((share * 100).rounded())) % of transfers fail (simulated)" : "\(sensor.rawValue): transfers no longer fail (simulated)"
        case .wedge(let sensor, let wedged):
            guard let place = sensorPlaces[sensor] else { return "no \(sensor.rawValue) on this board" }
            place.bus.setWedged(place.address, wedged)
            return "\(sensor.rawValue) \(wedged ? "wedged: it reads as zeros" : "unwedged") (simulated)"
        case .stall(let sensor, let stalled):
            guard let place = sensorPlaces[sensor] else { return "no \(sensor.rawValue) on this board" }
            place.chip.fifoStuck = stalled
            return "\(sensor.rawValue) \(stalled ? "stalled: it answers but samples nothing" : "samples again") (simulated)"
        case .answer, .end:
            return nil   // the band keeps the answer for its next question
        }
    }


    /// Keys of the simulated board: n/s/b press next/select/back (capitals hold them: a long
    /// press); w walks at 110 steps/min, + and - change the pace by 5, 0 stops; o takes the
    /// band off the wrist and puts it back. Keys typed faster than a press takes (several in
    /// one read, or a key while the previous one's press is still held) queue: each becomes
    /// its own press, in the order typed, once the previous one is released.
    func key(_ key: UInt8, now: Double) -> String? {
        let short = max(ScenarioScript.shortPressSeconds, 2 * debounceSeconds), long = 1.2
        if synthetic == nil && Array("w+-0o".utf8).contains(key) {
            return "the board plays a recording: the wearer's keys do nothing"
        }
        switch key {
        case UInt8(ascii: "n"): pressQueued(.next, now: now, holdSeconds: short)
        case UInt8(ascii: "N"): pressQueued(.next, now: now, holdSeconds: long)
        case UInt8(ascii: "s"), UInt8(ascii: " "), 10, 13: pressQueued(.select, now: now, holdSeconds: short)
        case UInt8(ascii: "S"): pressQueued(.select, now: now, holdSeconds: long)
        case UInt8(ascii: "b"): pressQueued(.back, now: now, holdSeconds: short)
        case UInt8(ascii: "B"): pressQueued(.back, now: now, holdSeconds: long)
        case UInt8(ascii: "w"):
            synthetic?.activity = .walking(cadenceStepsPerMinute: 110)
            return "walking at 110 steps/min"
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let synthetic else { return nil }
            let current: Double
            if case .walking(let cadence) = synthetic.activity { current = cadence } else { current = 100 }
            let next = min(200, max(40, current + (key == UInt8(ascii: "+") ? 5 : -5)))
            synthetic.activity = .walking(cadenceStepsPerMinute: next)
            return "walking at \(Int(next)) steps/min"
        case UInt8(ascii: "0"):
            synthetic?.activity = .still
            return "standing still"
        case UInt8(ascii: "o"):
            guard let synthetic else { return nil }
            synthetic.isWorn.toggle()
            return synthetic.isWorn ? "band back on the wrist" : "band off the wrist"
        default:
            return nil
        }
        return nil
    }

    /// A key's press, after the previous key's press is released and its line has settled.
    private func pressQueued(_ role: ButtonRole, now: Double, holdSeconds: Double) {
        let start = max(now, nextKeyPressSeconds)
        guard press(role: role, atSeconds: start, holdSeconds: holdSeconds) else { return }
        nextKeyPressSeconds = start + holdSeconds + 2 * debounceSeconds
    }

    static let keyHelp = "keys: n/s/b next/select/back (N/S/B hold), w walk, +/- pace, 0 stop, o wrist off/on, ? keys, q quit"
    /// The keys `key(_:now:)` acts on.
    static let knownKeys: Set<UInt8> = Set("nNsSbBw+-0o ".utf8).union([10, 13])
}
