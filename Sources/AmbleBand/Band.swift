import AmbleBandStore
import AmbleDrivers
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSignal
import AmbleSimulation
import AmbleStateMachines
import AmbleSync
import Logging

/// A button as the loop sees it: its line and its debouncer.
struct ButtonInput {
    let role: ButtonRole
    let line: any GPIOInput
    var debouncer: ButtonDebouncer
}

/// The band: samples the sensors, counts steps, estimates heart rate, runs the practice,
/// drives the motor, records sessions and serves them to companions.
///
/// One loop, one thread. Each time round: read the sensor FIFOs when due, turn button edges
/// into presses, close a second when one has passed, switch the motor, answer the sync link,
/// then sleep until the next thing is due or a descriptor becomes readable.
public final class Band {
    let clock: any BandClock
    let console: Console
    let logger: Logger
    public let store: BandStore
    let accelerometer: SensorChannel<AccelerometerBatch>
    let heartRateSensor: SensorChannel<OpticalBatch>?
    let motor: VibrationMotor
    /// The OLED, when the board has one.
    public let display: SSD1306?
    var displayDrawnScreen: Screen?
    var displayRetrySeconds = -Double.infinity
    var displayFailed = false
    var buttons: [ButtonInput]
    var practice: PracticeMachine
    /// The wearer's part in pairing, wiping and forgetting laptops: takes the buttons and the
    /// screen while active.
    var linkPrompt = LinkPrompt()
    public let simulation: SimulatedBoard?
    let sync: SyncService?
    let signals: SignalWatcher?
    let keyboard: RawKeyboard?
    var script: [ScenarioScript.Step]
    let exitAfterScript: Bool

    // Signal processing, the same code `amble analyze` runs.
    var stepCounter = StepCounter()
    var heartRate = HeartRateEstimator()
    var haptics = HapticsPlayer()

    // Timing (band seconds).
    let startSeconds: Double
    /// How often the FIFOs are read: at most 0.1 s, and at most half the time the fastest
    /// FIFO takes to fill (32 entries), so no sample is lost between reads.
    let sensorPeriodSeconds: Double
    var nextSensorRead: Double
    var nextSecond: Double
    var lastAccelerationTime = -Double.infinity
    var lastPPGTime = -Double.infinity
    var recentAcceleration = AccelerationHistory()

    // The second being measured.
    var stepsThisSecond = 0
    var skinDetected = true
    var screen: Screen = .notice(title: "Starting", detail: "")
    /// What the band shows now (display and status line).
    public var screenShown: Screen { screen }

    // Session recording.
    var sessionID: Int64?
    var motorFailed = false
    var stopRequested = false
    var scriptEnded = false
    /// The scripted wearer's answer to the next question the band asks (`answer yes`).
    var scriptedAnswer: Bool?

    init(clock: any BandClock, console: Console, logger: Logger, store: BandStore,
         accelerometer: SensorChannel<AccelerometerBatch>, heartRateSensor: SensorChannel<OpticalBatch>?, display: SSD1306?,
         motor: VibrationMotor, motorStrength: Double, buttons: [ButtonInput], practice: PracticeMachine,
         simulation: SimulatedBoard?, sync: SyncService?, signals: SignalWatcher?, keyboard: RawKeyboard?,
         script: ScenarioScript?, exitAfterScript: Bool) {
        self.clock = clock
        self.console = console
        self.logger = logger
        self.store = store
        self.accelerometer = accelerometer
        self.heartRateSensor = heartRateSensor
        self.display = display
        self.motor = motor
        self.buttons = buttons
        self.practice = practice
        self.simulation = simulation
        self.sync = sync
        self.signals = signals
        self.keyboard = keyboard
        self.exitAfterScript = exitAfterScript
        startSeconds = clock.nowSeconds
        let fastestRateHz = max(accelerometer.expectedRateHz, heartRateSensor?.expectedRateHz ?? 0)
        sensorPeriodSeconds = min(0.1, 0.5 * 32 / fastestRateHz)
        nextSensorRead = startSeconds
        nextSecond = startSeconds + 1
        self.script = (script?.steps ?? []).map { step in
            var shifted = step
            shifted.timeSeconds += clock.nowSeconds
            return shifted
        }
        haptics.pwmPeriodSeconds = 0.02
        motorStrengthScale = motorStrength
    }

    let motorStrengthScale: Double

    /// Runs until SIGTERM/SIGINT (or the script's end with `exitAfterScript`); the session under
    /// way is closed and stored first. Returns the exit status.
    public func run() -> Int32 {
        startIfNeeded()
        if let manual = clock as? ManualClock {
            runPaced(manual)
        } else {
            while !stopRequested {
                tick()
                sleepUntilSomethingIsDue()
            }
        }
        shutDown()
        return 0
    }

    /// Band time runs this many times faster than real time on a paced (simulated) clock.
    public var speed: Double = 1
    /// The wearer's height (m) and weight (kg), for the energy of a session.
    var wearer: (heightMeters: Double, weightKilograms: Double) = (1.70, 70)
    /// Active energy of the session under way, kcal.
    var sessionKilocalories = 0.0
    /// Held while the band runs: no second band records into the same store.
    var dataDirectoryLock: DirectoryLock?
    /// How far a laptop moved the band's date from the system clock (`amble band time`).
    var unixOffsetSeconds = 0.0
    /// The band's date now (the system clock plus the offset a laptop set).
    public var unixSeconds: Double { clock.unixSeconds + unixOffsetSeconds }
    /// Synced sessions beyond this many hours of seconds are pruned (board `[storage]`).
    var maximumSessionHours = 500
    var nextPruneSeconds = -Double.infinity
    /// The longest pass of the loop so far, seconds (reported at exit).
    public private(set) var longestTickSeconds = 0.0

    /// The simulated board's loop: band time advances in fixed ticks and waits for real time
    /// to catch up at `speed`. A process that is descheduled pauses band time instead of
    /// skipping it, so no emulated FIFO overflows because the host was busy.
    private func runPaced(_ manual: ManualClock, tickSeconds: Double = 0.01) {
        let real = SystemClock()
        var realStart = real.nowSeconds
        let bandStart = manual.nowSeconds
        while !stopRequested {
            tick()
            manual.advance(bySeconds: tickSeconds)
            let due = realStart + (manual.nowSeconds - bandStart) / speed
            let wait = due - real.nowSeconds
            if wait > 0 {
                _ = waitForReadable(pollDescriptors, timeoutSeconds: wait)
            } else if wait < -1 {
                // Far behind (the process was stopped, or the host is slow at a high speed):
                // the schedule moves, so band time does not race to catch up.
                realStart -= wait
                _ = waitForReadable(pollDescriptors, timeoutSeconds: 0)
            }
        }
    }

    var pollDescriptors: [Int32] {
        var descriptors = sync?.pollDescriptors ?? []
        descriptors += buttons.compactMap { $0.line.pollDescriptor }
        if let keyboard { descriptors.append(keyboard.pollDescriptor) }
        if let signals { descriptors.append(signals.pollDescriptor) }
        return descriptors
    }

    /// Runs on a clock that moves only when told: ticks every `tickSeconds` of band time for
    /// `seconds`, without sleeping (tests, and simulations as fast as the machine goes).
    /// Returns early when stopped; call `shutDown()` to close the session under way.
    public func run(advancing clock: ManualClock, forBandSeconds seconds: Double, tickSeconds: Double = 0.01) {
        precondition(clock === self.clock, "the band must have been built on this clock")
        startIfNeeded()
        let end = clock.nowSeconds + seconds
        while !stopRequested && clock.nowSeconds < end {
            tick()
            clock.advance(bySeconds: tickSeconds)
        }
    }

    private var started = false

    private func startIfNeeded() {
        guard !started else { return }
        started = true
        perform(practice.start(), now: clock.nowSeconds)
    }

    /// One time round the loop, at the clock's current time.
    func tick() {
        let started = SystemClock().nowSeconds
        defer { longestTickSeconds = max(longestTickSeconds, SystemClock().nowSeconds - started) }
        let now = clock.nowSeconds
        runScript(now: now)
        readKeyboard(now: now)
        if now >= nextSensorRead {
            readSensors(now: now)
            nextSensorRead = max(nextSensorRead + sensorPeriodSeconds, now - sensorPeriodSeconds)
        }
        readButtons(now: now)
        while now >= nextSecond {
            secondElapsed(at: nextSecond)
            nextSecond += 1
        }
        driveMotor(now: now)
        if let sync {
            sync.service(now: now)
            for request in sync.takePromptRequests() { performLink(linkPrompt.handle(request, now: now), now: now) }
        }
        performLink(linkPrompt.tick(now: now), now: now)
        if let yes = scriptedAnswer, case .question(_, _, _, let keys) = screen, keys.contains("select") {
            // The scripted wearer reads the question and answers a second later.
            scriptedAnswer = nil
            _ = simulation?.apply(.press(role: yes ? "select" : "back", holdSeconds: ScenarioScript.shortPressSeconds), atSeconds: now + 1)
        }
        if now >= nextPruneSeconds {
            pruneSyncedSessions()
            nextPruneSeconds = now + 3600
        }
        if let signal = signals?.takeSignal() {
            logger.info("signal \(signal) received: closing the session and stopping")
            stopRequested = true
        }
        drawStatus(now: now)
        drawDisplay(now: now)
    }

    // MARK: Sensors

    func readSensors(now: Double) {
        if let batch = accelerometer.poll(now: now) {
            ingest(batch, now: now)
        }
        if let sensor = heartRateSensor, let batch = sensor.poll(now: now) {
            ingest(batch, now: now, rateHz: sensor.expectedRateHz)
        }
    }

    func ingest(_ batch: AccelerometerBatch, now: Double) {
        let period = 1 / accelerometer.expectedRateHz
        let count = batch.samples.count
        for (i, v) in batch.samples.enumerated() {
            // The newest sample was taken just before the read; the others one period apart.
            let t = max(now - Double(count - 1 - i) * period, lastAccelerationTime + period * 0.5)
            lastAccelerationTime = t
            let sample = AccelerationSample(timeSeconds: t, xG: v.xG, yG: v.yG, zG: v.zG)
            recentAcceleration.append(sample)
            stepsThisSecond += stepCounter.process(sample)
        }
    }

    func ingest(_ batch: OpticalBatch, now: Double, rateHz: Double) {
        let period = 1 / rateHz
        let count = batch.samples.count
        if let skin = batch.skinDetected { skinDetected = skin }
        for (i, s) in batch.samples.enumerated() {
            let t = max(now - Double(count - 1 - i) * period, lastPPGTime + period * 0.5)
            lastPPGTime = t
            heartRate.process(PPGSample(timeSeconds: t, channels: [Double(s.infrared), Double(s.red)], acceleration: recentAcceleration.value(at: t)))
        }
    }

    // MARK: Buttons and keys

    func readButtons(now: Double) {
        for index in buttons.indices {
            var events: [ButtonEvent] = []
            do {
                for edge in try buttons[index].line.drainEdges() {
                    events += buttons[index].debouncer.edge(becameActive: edge.becameActive, atSeconds: edge.timeSeconds)
                }
            } catch {
                logger.warning("button \(buttons[index].role.rawValue): \(error)")
            }
            events += buttons[index].debouncer.update(now: now)
            for event in events {
                if linkPrompt.isActive {
                    performLink(linkPrompt.button(event, now: now), now: now)
                } else {
                    perform(practice.handle(.button(event)), now: now)
                }
            }
        }
    }

    func readKeyboard(now: Double) {
        guard let keyboard else { return }
        for key in keyboard.readKeys() {
            if key == UInt8(ascii: "q") || key == 3 {
                stopRequested = true
                continue
            }
            if let note = simulation?.key(key, now: now) { logger.info("\(note)") }
        }
    }

    func runScript(now: Double) {
        while let step = script.first, step.timeSeconds <= now {
            script.removeFirst()
            if case .answer(let yes) = step.action {
                scriptedAnswer = yes
                continue
            }
            if case .end = step.action {
                logger.notice("script finished")
                scriptEnded = true
                if exitAfterScript { stopRequested = true }
                continue
            }
            if let note = simulation?.apply(step.action, atSeconds: step.timeSeconds) {
                logger.info("script line \(step.line): \(note)")
            }
        }
    }

    // MARK: Seconds and the practice

    func secondElapsed(at bandSeconds: Double) {
        // A value only from a working sensor with fresh samples on skin: an unplugged sensor
        // must not leave its last value standing.
        let ppgFresh = heartRateSensor?.isHealthy == true && bandSeconds - lastPPGTime < 1.5
        let estimate = ppgFresh && skinDetected ? heartRate.estimate() : nil
        let accelerometerGap = accelerometer.takeGap()
        if accelerometerGap, stepCounter.isWalking {
            // The walk's samples stopped: it ends here, and its steps still pending are this
            // second's (rather than the first second after the gap's).
            stepsThisSecond += stepCounter.finish()
        }
        let heartRateGap = heartRateSensor?.takeGap() ?? false
        let report = SecondReport(
            unixSeconds: unixSeconds - (clock.nowSeconds - bandSeconds),
            steps: stepsThisSecond,
            cadenceStepsPerMinute: accelerometerGap && !accelerometer.isHealthy ? 0 : stepCounter.cadenceStepsPerMinute,
            heartRateBPM: estimate?.bpm, heartRateConfidence: estimate?.confidence,
            accelerometerGap: accelerometerGap, heartRateGap: heartRateGap)
        stepsThisSecond = 0
        if sessionID != nil {
            let gait = GaitModel(heightMeters: wearer.heightMeters, weightKilograms: wearer.weightKilograms, calibratedStepLengthMeters: practice.calibration?.stepLengthMeters)
            sessionKilocalories += gait.activeEnergyKilocalories(cadenceStepsPerMinute: report.cadenceStepsPerMinute, durationSeconds: 1)
        }
        let actions = practice.handle(.secondElapsed(report))
        // A prompt on screen keeps it; the practice's seconds still count and record.
        perform(linkPrompt.isActive ? actions.filter { if case .show = $0 { return false } else { return true } } : actions, now: bandSeconds)
    }

    /// Carries out what the practice asked for. Store failures are logged, never fatal:
    /// the walk goes on and what is already stored stays.
    func perform(_ actions: [PracticeAction], now: Double) {
        for action in actions {
            switch action {
            case .vibrate(let pattern):
                haptics.play(scaled(pattern), now: clock.nowSeconds)
                if pattern == .paceAlert && !console.isTerminal {
                    // On a terminal the status line shows the motor; in a log, say it once.
                    console.line("\(StatusLine.clock(now - startSeconds)) [≋ BUZZ ≋] too fast: pace alert")
                }
            case .show(let next):
                screen = next
            case .beginSession(let kind, let start, let parameters):
                heartRate.restartVariability()
                sessionKilocalories = 0
                do {
                    sessionID = try store.beginSession(kind: kind, startUnixSeconds: start, parameters: parameters)
                    logger.info("\(kind.rawValue) session \(sessionID!) started")
                } catch {
                    sessionID = nil
                    logger.error("cannot start recording the session: \(error)")
                }
            case .recordSecond(let row):
                guard let sessionID else { continue }
                do { try store.appendSecond(sessionID: sessionID, row) } catch {
                    logger.error("cannot store second \(row.offsetSeconds) of session \(sessionID): \(error)")
                }
            case .endSession(var summary):
                guard let id = sessionID else { continue }
                // The counter releases steps once they are certain, about 10 s late: the walk's
                // last steps come now, with its end.
                let late = stepCounter.finish()
                if late > 0 {
                    summary.steps += late
                    summary.distanceMeters = Double(summary.steps) * summary.parameters.stepLengthMeters
                }
                summary.rmssdMilliseconds = heartRate.restingVariability?.rmssdMilliseconds
                summary.activeKilocalories = sessionKilocalories
                do {
                    try store.endSession(sessionID: id, summary: summary)
                    try SessionDataEncoding.encode(sessionID: id, in: store)
                    logger.notice("\(summary.kind.rawValue) session \(id) stored: \(summary.steps) steps, \(summary.alerts) alerts, \(summary.timeOverLimitSeconds) s over the limit")
                } catch {
                    logger.error("cannot close session \(id): \(error); it will be closed from its stored seconds at the next start")
                }
                sessionID = nil
            case .saveCalibration(let calibration):
                do { try store.saveCalibration(calibration) } catch { logger.error("cannot store the calibration: \(error)") }
                logger.notice("calibrated: normal pace \(Int(calibration.cadenceStepsPerMinute.rounded())) steps/min")
            case .restartSeconds:
                nextSecond = clock.nowSeconds + 1
            case .saveReduction(let percent):
                do { try store.saveReductionPercent(percent) } catch { logger.error("cannot store the reduction: \(error)") }
            case .link(let request):
                performLink(linkPrompt.handle(request, now: now), now: now)
            }
        }
    }

    /// Carries out what the wearer's prompt asked for.
    func performLink(_ actions: [LinkPrompt.Action], now: Double) {
        for action in actions {
            switch action {
            case .show(let next):
                screen = next
            case .vibrate(let pattern):
                haptics.play(scaled(pattern), now: clock.nowSeconds)
            case .pairingMode(let open):
                sync?.isPairingModeOpen = open
                if open && sync == nil { logger.warning("pairing mode, but ambled serves no link: start it with --listen or --serial") }
            case .pairingAnswer(let connection, let accepted):
                sync?.wearerAnswered(pairing: connection, accepted: accepted)
            case .deleteAllAnswer(let accepted):
                if accepted { wipe() }
                sync?.deleteAllAnswered(accepted: accepted)
            case .forgetLaptops:
                do {
                    try store.forgetLaptops()
                    logger.notice("the wearer forgot every paired laptop")
                } catch {
                    logger.error("cannot forget the paired laptops: \(error)")
                }
                sync?.dropUnpairedConnections()
            case .done:
                perform(practice.redraw(), now: now)
            }
        }
    }

    /// Deletes everything on the band (a laptop asked, the wearer confirmed): sessions,
    /// calibration, settings, paired laptops. The band's id and key stay.
    func wipe() {
        do {
            try store.deleteEverything()
            practice = PracticeMachine(settings: practice.settings, calibration: nil)
            logger.notice("the band was wiped at the wearer's confirmation")
        } catch {
            logger.error("cannot wipe the band: \(error)")
        }
    }

    /// Removes synced sessions past the wearer's retention or the board's space limit.
    func pruneSyncedSessions() {
        do {
            let days = Int(try store.setting(.retentionDays)) ?? 30
            let removed = try store.prune(nowUnixSeconds: unixSeconds, retentionDays: days, maximumSeconds: maximumSessionHours * 3600)
            if !removed.isEmpty { logger.info("removed \(removed.count) synced session(s) past \(days) days or \(maximumSessionHours) h of storage") }
        } catch {
            logger.error("cannot prune synced sessions: \(error)")
        }
    }

    private func scaled(_ pattern: HapticPattern) -> HapticPattern {
        guard motorStrengthScale < 1 else { return pattern }
        var copy = pattern
        copy.segments = pattern.segments.map { .init(durationSeconds: $0.durationSeconds, strength: $0.strength * motorStrengthScale) }
        return copy
    }

    // MARK: Motor, display, waiting

    func driveMotor(now: Double) {
        let run = haptics.motorShouldRun(now: now)
        do {
            try motor.set(running: run)
            motorFailed = false
        } catch {
            if !motorFailed { logger.error("motor: \(error)") }
            motorFailed = true
        }
    }

    func drawStatus(now: Double) {
        let line = StatusLine.render(screen: screen, bandSeconds: now - startSeconds, motorRunning: motor.isRunning,
                                     accelerometerOK: accelerometer.isHealthy, heartRateOK: heartRateSensor?.isHealthy ?? false)
        console.status(line, key: StatusLine.key(screen), now: now)
    }

    /// Redraws the OLED when the screen changed. A display that fails is set up again every
    /// few seconds (after a power glitch it needs its init sequence: `flush()` sends it first
    /// and after any failed send); it never stops the band.
    func drawDisplay(now: Double) {
        guard let display, screen != displayDrawnScreen || displayFailed, now >= displayRetrySeconds else { return }
        ScreenRenderer.draw(screen, into: &display.framebuffer)
        do {
            _ = try display.flush()
            if displayFailed { logger.notice("display works again") }
            displayFailed = false
            displayDrawnScreen = screen
        } catch {
            if !displayFailed { logger.error("display: \(error); retrying every 5 s") }
            displayFailed = true
            displayRetrySeconds = now + 5
        }
    }

    func sleepUntilSomethingIsDue() {
        let now = clock.nowSeconds
        var wake = min(nextSensorRead, nextSecond)
        if let change = haptics.nextChangeSeconds(after: now) { wake = min(wake, change) }
        if let step = script.first { wake = min(wake, step.timeSeconds) }
        if buttons.contains(where: { (try? $0.line.isActive()) == true }) { wake = min(wake, now + 0.01) }
        _ = waitForReadable(pollDescriptors, timeoutSeconds: min(max(0, wake - now), 0.5))
    }

    /// Closes the session under way, stores it, stops the motor and the sync link.
    public func shutDown() {
        perform(practice.finish(unixSeconds: unixSeconds), now: clock.nowSeconds)
        try? motor.set(running: false)
        sync?.close()
        keyboard?.restore()
        drawStatus(now: clock.nowSeconds)
        console.finish()
        logger.info("stopped; longest loop pass \(Int((longestTickSeconds * 1000).rounded())) ms")
    }
}

extension Band: SyncServiceDelegate {
    var isBusy: Bool { !practice.isIdle || linkPrompt.isActive }

    func setClock(unixSeconds target: Double) -> Double {
        let moved = target - unixSeconds
        unixOffsetSeconds += moved
        do { try store.setClockOffsetSeconds(unixOffsetSeconds) } catch { logger.error("cannot store the clock offset: \(error)") }
        nextPruneSeconds = -Double.infinity   // sessions' ages changed
        logger.notice("a laptop set the band's date (moved \(Int(moved.rounded())) s)")
        return moved
    }

    func settingChanged(_ setting: BandSetting, to value: String) {
        logger.notice("a laptop set \(setting.rawValue) = \(value)")
        switch setting {
        case .heightCentimeters: wearer.heightMeters = (Double(value) ?? 170) / 100
        case .weightKilograms: wearer.weightKilograms = Double(value) ?? 70
        case .retentionDays: nextPruneSeconds = -Double.infinity
        default: break   // read at the next start (the band's own settings menu is issue 17's)
        }
    }
}
