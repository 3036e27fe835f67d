import AmbleHardware
import AmbleLinux
import AmbleSimulation
import AmbleStateMachines
import Logging

/// The simulated board's side of the process, outside the band's loop (as InfiniTime keeps its
/// simulator outside the firmware): band time on a manual clock, paced against real time at
/// `speed`; the scenario script's steps and the scripted wearer's answers; the keys typed on
/// the terminal. It drives the band (`Band.tick()`) and acts on the simulated board's chips,
/// lines and wearer (`SimulatedBoard`); the band never calls it.
final class SimulatedHost: BandHost {
    /// Band time: moves only when this host advances it.
    let clock: ManualClock
    /// The emulated chips, simulated lines and the wearer that scripts and keys act on.
    let board: SimulatedBoard
    /// Single keys from the terminal; nil without one or with `--no-keyboard`.
    let keyboard: RawKeyboard?
    /// Band time runs this many times faster than real time (`--speed`).
    let speed: Double
    /// The scenario script's steps still to come (none without `--script`).
    private var script: ScenarioPlayer
    private let console: Console
    private let logger: Logger

    init(clock: ManualClock, board: SimulatedBoard, keyboard: RawKeyboard?, speed: Double, script: ScenarioPlayer, console: Console, logger: Logger) {
        self.clock = clock
        self.board = board
        self.keyboard = keyboard
        self.speed = speed
        self.script = script
        self.console = console
        self.logger = logger
    }

    /// Band time advances in fixed ticks and waits for real time to catch up at `speed`. A
    /// process that is descheduled pauses band time instead of skipping it, so no emulated FIFO
    /// overflows because the host was busy. Input that ends a wait early (a laptop's bytes, a
    /// key) is served at the same band time: band time never runs ahead of real time, however
    /// busy the link is, and a stop is seen at once.
    func run(_ band: Band) {
        let tickSeconds = 0.01
        let real = SystemClock()
        var realStart = real.nowSeconds
        let bandStart = clock.nowSeconds
        defer { keyboard?.restore() }
        while !band.stopRequested {
            step(band)
            if band.stopRequested { break }
            let descriptors = band.pollDescriptors + (keyboard.map { [$0.pollDescriptor] } ?? [])
            let due = realStart + (clock.nowSeconds + tickSeconds - bandStart) / speed
            let wait = due - real.nowSeconds
            if wait > 0 {
                let readable = waitForReadable(descriptors, timeoutSeconds: wait)
                if !readable.isEmpty && real.nowSeconds < due { continue }
            } else if wait < -1 {
                // Far behind (the process was stopped, or the host is slow at a high speed):
                // the schedule moves, so band time does not race to catch up.
                realStart -= wait
                _ = waitForReadable(descriptors, timeoutSeconds: 0)
            }
            clock.advance(bySeconds: tickSeconds)
        }
    }

    /// Ticks every `tickSeconds` of band time for `seconds`, without sleeping (tests, and
    /// simulations as fast as the machine goes). Returns early when the band is stopped.
    func run(_ band: Band, forBandSeconds seconds: Double, tickSeconds: Double) {
        let end = clock.nowSeconds + seconds
        while !band.stopRequested && clock.nowSeconds < end {
            step(band)
            clock.advance(bySeconds: tickSeconds)
        }
    }

    /// One pass at the clock's time: the script's steps and the keys due now, the band's own
    /// pass, then the scripted wearer's answer to a question the band now asks.
    private func step(_ band: Band) {
        let now = clock.nowSeconds
        runScript(band, now: now)
        if let keyboard { keysTyped(keyboard.readKeys(), band: band, now: now) }
        band.tick()
        if let answer = script.answer(to: band.screenShown) {
            _ = board.apply(answer, atSeconds: now + 1)
        }
    }

    private func runScript(_ band: Band, now: Double) {
        for step in script.dueSteps(now: now) {
            if case .end = step.action {
                logger.notice("script finished")
                if script.exitAfterScript { band.stopRequested = true }
                continue
            }
            if let note = board.apply(step.action, atSeconds: step.timeSeconds) {
                logger.info("script line \(step.line): \(note)")
            }
        }
    }

    /// Keys read from the terminal at band time `now` (several when typed quickly): q or
    /// Ctrl-C stops the band, ? or h lists the keys, the others act on the board.
    func keysTyped(_ keys: [UInt8], band: Band, now: Double) {
        for key in keys {
            if key == UInt8(ascii: "q") || key == 3 {
                band.stopRequested = true
                continue
            }
            if key == UInt8(ascii: "?") || key == UInt8(ascii: "h") {
                console.line(SimulatedBoard.keyHelp)
                continue
            }
            guard SimulatedBoard.knownKeys.contains(key) else {
                let shown = key >= 0x20 && key < 0x7F ? "'\(Character(Unicode.Scalar(key)))'" : "code \(key)"
                console.line("key \(shown) does nothing here; press ? for the keys")
                continue
            }
            if let note = board.key(key, now: now) { logger.info("\(note)") }
        }
    }
}

/// What tests and scripts reach of the simulated board through the band they built
/// (`BandAssembly.build`): the board, and its time and keys. The loop itself never uses these.
extension Band {
    /// The simulated board's chips, lines and wearer; nil on real hardware.
    public var simulation: SimulatedBoard? { simulatedHost?.board }

    private var simulatedHost: SimulatedHost? { host as? SimulatedHost }

    /// Runs on a clock that moves only when told: ticks every `tickSeconds` of band time for
    /// `seconds`, without sleeping (tests, and simulations as fast as the machine goes).
    /// Returns early when stopped; call `shutDown()` to close the session under way.
    public func run(advancing clock: ManualClock, forBandSeconds seconds: Double, tickSeconds: Double = 0.01) {
        guard let host = simulatedHost, clock === host.clock else { preconditionFailure("the band must have been built on this clock") }
        startIfNeeded()
        host.run(self, forBandSeconds: seconds, tickSeconds: tickSeconds)
    }

    /// Keys read from the terminal at band time `now` (several when typed quickly).
    func keysTyped(_ keys: [UInt8], now: Double) {
        simulatedHost?.keysTyped(keys, band: self, now: now)
    }
}
