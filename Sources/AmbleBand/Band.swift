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

/// The band: samples the sensors, counts steps, estimates heart rate, runs the practice,
/// drives the motor, records sessions and serves them to companions.
///
/// It wires five parts, each with one job, and owns only the loop's timing:
/// - `hardware` (`BandHardware`): clock, sensor channels, motor, buttons, display;
/// - `signals` (`SignalPipeline`): samples in, one `SecondReport` per second out;
/// - `practice` (`BandPractice`): the practice and link-prompt machines, the haptics;
/// - `recorder` (`BandRecorder`): the store, sessions, pruning, the date's offset;
/// - `link` (`SyncService`): paired laptops over TCP or serial, when served.
///
/// One loop, one thread. Each time round: read the sensor FIFOs when due, turn button edges
/// into presses, close a second when one has passed, switch the motor, answer the sync link,
/// then sleep until the next thing is due or a descriptor becomes readable.
public final class Band {
    var hardware: BandHardware
    var signals: SignalPipeline
    var practice: BandPractice
    let recorder: BandRecorder
    let link: SyncService?
    /// The link's time (real time, whatever the simulated board's speed).
    private let linkClock: any BandClock
    var host: BandHost
    let console: Console
    let logger: Logger

    // Timing (band seconds).
    let startSeconds: Double
    var nextSensorRead: Double
    var nextSecond: Double
    var stopRequested = false
    /// Band time the session under way began (raw capture counts from it); nil between sessions.
    var sessionStartSeconds: Double?
    /// The kind of screen last written to the log (without a terminal).
    private var lastStatusKey = ""
    private var started = false
    /// The system clock's date less its monotonic time at the last second: a change is a step.
    private var systemDateOrigin: Double?
    /// The longest pass of the loop so far, seconds (reported at exit).
    public private(set) var longestTickSeconds = 0.0
    /// The local time zone's offset from UTC at a date, seconds east (reminders come at local
    /// times); the machine's zone unless a test sets another.
    public var utcOffsetSeconds: (Double) -> Int = { localUTCOffsetSeconds(atUnixSeconds: $0) }
    /// systemd's notification socket, when the band runs as a `Type=notify` service: told
    /// when the band is ready and stopping, and pinged at half the watchdog's timeout.
    public var serviceNotifier: ServiceNotifier?
    private var notifierFailed = false

    init(hardware: BandHardware, signals: SignalPipeline, practice: BandPractice, recorder: BandRecorder, link: SyncService?,
         linkClock: any BandClock, host: BandHost, console: Console, logger: Logger) {
        self.hardware = hardware
        self.linkClock = linkClock
        self.signals = signals
        self.practice = practice
        self.recorder = recorder
        self.link = link
        self.host = host
        self.console = console
        self.logger = logger
        startSeconds = hardware.clock.nowSeconds
        nextSensorRead = startSeconds
        nextSecond = startSeconds + 1
        link?.delegate = self
        link?.wallClock = { [unowned self] in self.unixSeconds }
    }

    // MARK: What tests and scripts look at

    /// The band's store.
    public var store: BandStore { recorder.store }
    /// What the band shows now (display and status line).
    public var screenShown: Screen { practice.screen }
    /// The simulated board's chips, lines and wearer; nil on real hardware.
    public var simulation: SimulatedBoard? { hardware.simulation }
    /// The OLED's driver, when the board has one.
    public var display: SSD1306? { hardware.display?.driver }
    /// The band's date now (the system clock plus the offset a laptop set).
    public var unixSeconds: Double { hardware.clock.unixSeconds + recorder.unixOffsetSeconds }

    // MARK: Running

    /// Runs until SIGTERM/SIGINT (or the script's end with `exitAfterScript`); the session under
    /// way is closed and stored first. Returns the exit status.
    public func run() -> Int32 {
        startIfNeeded()
        if let manual = hardware.clock as? ManualClock {
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

    /// The simulated board's loop: band time advances in fixed ticks and waits for real time
    /// to catch up at `host.speed`. A process that is descheduled pauses band time instead of
    /// skipping it, so no emulated FIFO overflows because the host was busy. Input that ends a
    /// wait early (a laptop's bytes) is served at the same band time: band time never runs
    /// ahead of real time, however busy the link is, and a stop is seen at once.
    private func runPaced(_ manual: ManualClock, tickSeconds: Double = 0.01) {
        let real = SystemClock()
        var realStart = real.nowSeconds
        let bandStart = manual.nowSeconds
        while !stopRequested {
            tick()
            if stopRequested { break }
            let due = realStart + (manual.nowSeconds + tickSeconds - bandStart) / host.speed
            let wait = due - real.nowSeconds
            if wait > 0 {
                let readable = waitForReadable(pollDescriptors, timeoutSeconds: wait)
                if !readable.isEmpty && real.nowSeconds < due { continue }
            } else if wait < -1 {
                // Far behind (the process was stopped, or the host is slow at a high speed):
                // the schedule moves, so band time does not race to catch up.
                realStart -= wait
                _ = waitForReadable(pollDescriptors, timeoutSeconds: 0)
            }
            manual.advance(bySeconds: tickSeconds)
        }
    }

    var pollDescriptors: [Int32] {
        (link?.pollDescriptors ?? []) + hardware.pollDescriptors + host.pollDescriptors
    }

    /// Runs on a clock that moves only when told: ticks every `tickSeconds` of band time for
    /// `seconds`, without sleeping (tests, and simulations as fast as the machine goes).
    /// Returns early when stopped; call `shutDown()` to close the session under way.
    public func run(advancing clock: ManualClock, forBandSeconds seconds: Double, tickSeconds: Double = 0.01) {
        precondition(clock === hardware.clock, "the band must have been built on this clock")
        startIfNeeded()
        let end = clock.nowSeconds + seconds
        while !stopRequested && clock.nowSeconds < end {
            tick()
            clock.advance(bySeconds: tickSeconds)
        }
    }

    private func startIfNeeded() {
        guard !started else { return }
        started = true
        perform(practice.start(), now: hardware.clock.nowSeconds)
        notify { try $0.ready(status: "running; the practice shows its menu") }
    }

    /// Sends to systemd when it listens; the first failure is a warning, later ones debug
    /// (a full socket would otherwise log every pass of the loop).
    private func notify(_ send: (ServiceNotifier) throws -> Void) {
        guard let notifier = serviceNotifier else { return }
        do {
            try send(notifier)
        } catch {
            if notifierFailed { logger.debug("systemd notification: \(error)") } else { logger.warning("systemd notification: \(error)") }
            notifierFailed = true
        }
    }

    /// One time round the loop, at the clock's current time.
    func tick() {
        let started = SystemClock().nowSeconds
        defer { longestTickSeconds = max(longestTickSeconds, SystemClock().nowSeconds - started) }
        let now = hardware.clock.nowSeconds
        runScript(now: now)
        readKeyboard(now: now)
        if now >= nextSensorRead {
            readSensors(now: now)
            nextSensorRead = max(nextSensorRead + hardware.sensorPeriodSeconds, now - hardware.sensorPeriodSeconds)
        }
        for event in hardware.readButtons(now: now) {
            switch practice.buttonPressed(event, now: now) {
            case .practice(let actions): perform(actions, now: now)
            case .link(let actions): performLink(actions, now: now)
            }
        }
        while now >= nextSecond {
            secondElapsed(at: nextSecond)
            nextSecond += 1
        }
        hardware.setMotor(running: practice.motorShouldRun(now: now))
        if let link {
            link.service(now: linkClock.nowSeconds)
            for request in link.takePromptRequests() { performLink(practice.linkRequested(request, now: now), now: now) }
        }
        performLink(practice.tick(now: now), now: now)
        if let answer = host.script.answer(to: practice.screen) {
            _ = hardware.simulation?.apply(answer, atSeconds: now + 1)
        }
        recorder.pruneIfDue(now: now, unixSeconds: unixSeconds)
        if recorder.condition != practice.machine.storage { perform(practice.storageChanged(recorder.condition), now: now) }
        if let signal = host.signals?.takeSignal() {
            logger.info("signal \(signal) received: closing the session and stopping")
            notify { try $0.stopping(status: "storing the session under way") }
            stopRequested = true
        }
        // The watchdog runs on real time, whatever the simulated board's speed.
        notify { try $0.watchdogIfDue(nowSeconds: SystemClock().nowSeconds) }
        drawStatus(now: now)
        hardware.display?.show(practice.screen, now: now)
    }

    // MARK: Inputs

    func readSensors(now: Double) {
        if let batch = hardware.accelerometer.poll(now: now) {
            signals.ingest(batch, now: now, rateHz: hardware.accelerometer.expectedRateHz)
        }
        if let sensor = hardware.heartRateSensor, let batch = sensor.poll(now: now) {
            signals.ingest(batch, now: now, rateHz: sensor.expectedRateHz)
        }
    }

    func readKeyboard(now: Double) {
        guard let keyboard = host.keyboard else { return }
        keysTyped(keyboard.readKeys(), now: now)
    }

    /// Keys read from the terminal at band time `now` (several when typed quickly).
    func keysTyped(_ keys: [UInt8], now: Double) {
        for key in keys {
            if key == UInt8(ascii: "q") || key == 3 {
                stopRequested = true
                continue
            }
            if key == UInt8(ascii: "?") || key == UInt8(ascii: "h") {
                console.line(SimulatedBoard.keyHelp)
                continue
            }
            guard let simulation = hardware.simulation else { continue }
            guard SimulatedBoard.knownKeys.contains(key) else {
                let shown = key >= 0x20 && key < 0x7F ? "'\(Character(Unicode.Scalar(key)))'" : "code \(key)"
                console.line("key \(shown) does nothing here; press ? for the keys")
                continue
            }
            if let note = simulation.key(key, now: now) { logger.info("\(note)") }
        }
    }

    func runScript(now: Double) {
        for step in host.script.dueSteps(now: now) {
            if case .end = step.action {
                logger.notice("script finished")
                if host.script.exitAfterScript { stopRequested = true }
                continue
            }
            if let note = hardware.simulation?.apply(step.action, atSeconds: step.timeSeconds) {
                logger.info("script line \(step.line): \(note)")
            }
        }
    }

    // MARK: Seconds and the practice

    /// The band's date moved by `seconds` (a laptop set it, or the system clock was stepped):
    /// what runs on elapsed time keeps its course. A session's end is its start plus the
    /// seconds it ran, so only the reminder's snooze needs telling.
    func dateMoved(bySeconds seconds: Double) {
        guard practice.reminders.state.items.values.contains(where: { $0.snoozedUntilUnixSeconds != nil }) else { return }
        practice.dateMoved(bySeconds: seconds)
        recorder.saveReminderState(practice.reminders.state)
    }

    /// Notices the system clock stepped since the last second (NTP, `date -s`): its date less
    /// its monotonic time changed by more than a second.
    private func noticeSystemClockStep() {
        let origin = hardware.clock.unixSeconds - hardware.clock.nowSeconds
        defer { systemDateOrigin = origin }
        guard let previous = systemDateOrigin, abs(origin - previous) > 1 else { return }
        logger.notice("the system clock moved by \(Int((origin - previous).rounded())) s")
        dateMoved(bySeconds: origin - previous)
    }

    func secondElapsed(at bandSeconds: Double) {
        noticeSystemClockStep()
        let heartRateSensor = hardware.heartRateSensor.map { sensor in
            SignalPipeline.ChannelState(gap: sensor.takeGap(secondEnd: bandSeconds), isHealthy: sensor.isHealthy)
        }
        let date = unixSeconds - (hardware.clock.nowSeconds - bandSeconds)
        let report = signals.closeSecond(
            at: bandSeconds, unixSeconds: date,
            accelerometer: .init(gap: hardware.accelerometer.takeGap(secondEnd: bandSeconds), isHealthy: hardware.accelerometer.isHealthy),
            heartRateSensor: heartRateSensor, calibratedStepLengthMeters: practice.calibration?.stepLengthMeters)
        perform(practice.secondElapsed(report), now: bandSeconds)
        storeRawSamples()
        guard !practice.reminders.reminders.isEmpty else { return }
        let reminder = practice.checkReminder(unixSeconds: date, utcOffsetSeconds: utcOffsetSeconds(date))
        if reminder.stateChanged { recorder.saveReminderState(practice.reminders.state) }
        if !reminder.actions.isEmpty { logger.notice("reminder due: \(Self.reminderOutcome(reminder.actions))") }
        perform(reminder.actions, now: bandSeconds)
    }

    /// What became of a reminder that fell due, for the log: shown, or why not.
    static func reminderOutcome(_ actions: [PracticeAction]) -> String {
        for action in actions {
            switch action {
            case .show: return "shown"
            case .dismissReminder: return "not shown, a walk is under way"
            case .snoozeReminder(let minutes): return "snoozed for \(minutes) min, the wearer is busy"
            default: continue
            }
        }
        return "no action"
    }

    /// Carries out what the practice asked for.
    func perform(_ actions: [PracticeAction], now: Double) {
        for action in actions {
            switch action {
            case .vibrate(let pattern):
                practice.vibrate(hardware.scaled(pattern), now: hardware.clock.nowSeconds)
                if pattern.name == HapticPattern.paceAlert.name {
                    logger.info("pace alert: walking faster than the limit")
                }
            case .show(let next):
                practice.show(next)
            case .beginSession(let kind, let start, let parameters):
                signals.sessionBegan(kind, parameters: parameters)
                recorder.begin(kind: kind, startUnixSeconds: start, parameters: parameters)
                sessionStartSeconds = now
                if practice.machine.values.rawCaptureConsent { startRawCapture() }
            case .recordSecond(let row, let earlier, let progress):
                recorder.append(row, earlier: earlier, progress: progress)
            case .endSession(let summary):
                // The counter releases steps once they are certain, about 10 s late: the walk's
                // last steps come now, with its end, and go to the seconds they were taken in.
                sessionStartSeconds = nil
                if var capture = signals.rawCapture {
                    signals.rawCapture = nil
                    recorder.appendRaw(capture.finishAll())
                }
                guard recorder.isRecording else { continue }
                let stored = recorder.end(summary, lateSteps: signals.finishSteps())
                if stored != summary { perform(practice.summaryStored(stored), now: now) }
            case .discardSession:
                sessionStartSeconds = nil
                signals.rawCapture = nil   // what was stored goes with the session
                _ = signals.finishSteps()
                recorder.discard()
            case .saveCalibration(let calibration):
                recorder.save(calibration)
            case .restartSeconds:
                nextSecond = hardware.clock.nowSeconds + 1
            case .saveSetting(let setting, let stored):
                // Chosen on the band: the practice holds the typed value; the text is the store's.
                recorder.save(setting, stored)
                practice.settingsChanged()
                follow(setting)
            case .link(let request):
                performLink(practice.linkRequested(request, now: now), now: now)
            case .metronome(let period):
                practice.setMetronome(periodSeconds: period, now: hardware.clock.nowSeconds)
            case .snoozeReminder(let minutes):
                practice.snoozeReminder(minutes: minutes, unixSeconds: unixSeconds)
                recorder.saveReminderState(practice.reminders.state)
            case .dismissReminder:
                practice.dismissReminder()
                recorder.saveReminderState(practice.reminders.state)
            }
        }
    }

    /// Carries out what the wearer's prompt asked for.
    func performLink(_ actions: [LinkPrompt.Action], now: Double) {
        for action in actions {
            switch action {
            case .show(let next):
                practice.show(next)
            case .vibrate(let pattern):
                practice.vibrate(hardware.scaled(pattern), now: hardware.clock.nowSeconds)
            case .pairingMode(let open):
                link?.isPairingModeOpen = open
                if open && link == nil { logger.warning("pairing mode, but ambled serves no link: start it with --listen or --serial") }
            case .pairingAnswer(let connection, let accepted):
                link?.wearerAnswered(pairing: connection, accepted: accepted)
            case .deleteAllAnswer(let accepted):
                if accepted && recorder.wipe() {
                    practice.wiped(values: (try? store.settingValues()) ?? BandSettingValues())
                    follow(.consentHeartRate)
                }
                link?.deleteAllAnswered(accepted: accepted)
            case .forgetLaptops:
                recorder.forgetLaptops()
                studyRemindersChanged()
                link?.dropUnpairedConnections()
            case .done:
                perform(practice.redraw(), now: now)
            }
        }
    }

    // MARK: Output and waiting

    /// What the optical sensor is doing, for the status line.
    var heartRateSensorState: StatusLine.HeartRateSensor {
        guard let sensor = hardware.heartRateSensor else { return .down }
        if sensor.isOff { return .off }
        guard sensor.isHealthy else { return .down }
        return signals.skinDetected ? .ok : .offWrist
    }

    func drawStatus(now: Double) {
        guard console.isTerminal else {
            // No terminal (a service): what the screen shows goes to the log at debug level,
            // once per change of kind, never periodically.
            let key = StatusLine.key(practice.screen)
            if key != lastStatusKey {
                lastStatusKey = key
                logger.debug("screen: \(StatusLine.text(practice.screen))")
            }
            return
        }
        console.status(StatusLine.render(screen: practice.screen, bandSeconds: now - startSeconds, motorRunning: hardware.motor.isRunning,
                                         accelerometerOK: hardware.accelerometer.isHealthy, heartRate: heartRateSensorState,
                                         storage: recorder.condition, width: console.width))
    }

    func sleepUntilSomethingIsDue() {
        let now = hardware.clock.nowSeconds
        var wake = min(nextSensorRead, nextSecond)
        if let change = practice.nextMotorChange(after: now) { wake = min(wake, change) }
        if let step = host.script.nextStepSeconds { wake = min(wake, step) }
        if hardware.isAnyButtonHeld { wake = min(wake, now + 0.01) }
        _ = waitForReadable(pollDescriptors, timeoutSeconds: min(max(0, wake - now), 0.5))
    }

    /// Closes the session under way, stores it, stops the motor and the sync link.
    public func shutDown() {
        perform(practice.finish(), now: hardware.clock.nowSeconds)
        try? hardware.motor.set(running: false)
        link?.close()
        host.keyboard?.restore()
        drawStatus(now: hardware.clock.nowSeconds)
        console.finish()
        logger.info("stopped; longest loop pass \(Int((longestTickSeconds * 1000).rounded())) ms")
    }
}

extension Band: SyncServiceDelegate {
    var isBusy: Bool { practice.isBusy }

    func setClock(unixSeconds target: Double) -> SyncMessage {
        let verdict = LaptopDate.check(laptopUnixSeconds: target, bandUnixSeconds: unixSeconds)
        if let refusal = LaptopDate.refusal(verdict) {
            logger.warning("a laptop's date was refused: \(refusal)")
            return .failure(code: .badValue, message: refusal)
        }
        let moved = target - unixSeconds
        recorder.moveDate(bySeconds: moved, toUnixSeconds: target)
        dateMoved(bySeconds: moved)
        logger.notice("a laptop set the band's date (moved \(Int(moved.rounded())) s)")
        return .clockSet(offsetSeconds: moved)
    }

    func settingChanged(_ setting: BandSetting, to value: String) {
        logger.notice("a laptop set \(setting.rawValue) = \(value)")
        apply(setting, value)
    }

    func laptopSettingChanged(_ setting: LaptopSetting, to value: String) {
        logger.notice("a laptop set its \(setting.rawValue) = \(value)")
        studyRemindersChanged()
    }

    /// The paired laptops' study reminders, read again (one was set, laptops were forgotten).
    func studyRemindersChanged() {
        practice.setStudyReminders(recorder.studyReminders())
        recorder.saveReminderState(practice.reminders.state)
    }
    func storeFilled() { recorder.storeFilled() }

    func usingReserve<T>(_ change: () throws -> T) throws -> T { try recorder.usingReserve(change) }

    var storage: (condition: StoreCondition, text: String) { (recorder.condition, recorder.conditionText) }
}

extension Band {
    /// Starts raw capture for the session under way, if one is and none runs.
    func startRawCapture() {
        guard let start = sessionStartSeconds, recorder.isRecording, signals.rawCapture == nil else { return }
        signals.rawCapture = RawSampleCapture(sessionStartSeconds: start)
        logger.info("raw capture on: the session's accelerometer\(signals.heartRateConsent ? " and PPG" : "") samples are kept")
    }

    /// Stores the raw blocks finished since the last second; says once when the cap is reached.
    func storeRawSamples() {
        guard var capture = signals.rawCapture else { return }
        recorder.appendRaw(capture.takeFinishedBlocks())
        defer { signals.rawCapture = capture }
        if capture.capReached && !capture.capReported {
            capture.capReported = true
            logger.warning("raw capture reached its cap of \(capture.maximumBytes >> 20) MiB for this session after \(capture.samplesTaken[.accelerometer] ?? 0) accelerometer and \(capture.samplesTaken[.ppg] ?? 0) PPG samples; the session goes on without raw samples")
        }
    }

    /// A laptop set a setting (already stored): its text is read once, here, and every part
    /// that depends on it follows at once.
    func apply(_ setting: BandSetting, _ text: String) {
        practice.apply(setting, text)
        follow(setting)
    }

    /// A setting changed, on the band's menu or from a laptop: every part that depends on it
    /// follows, reading its typed value from the practice.
    func follow(_ setting: BandSetting) {
        let values = practice.machine.values
        switch setting {
        case .heightCentimeters:
            let meters = Double(values.heightCentimeters) / 100
            signals.wearer.heightMeters = meters
            practice.setDefaultStepLength(GaitModel.defaultStepLengthMeters(heightMeters: meters))
        case .weightKilograms:
            signals.wearer.weightKilograms = Double(values.weightKilograms)
        case .retentionDays:
            recorder.pruneSoon()
        case .goalProgress:
            // Shown over the menu: draw it now if the menu is on screen.
            if case .menu = practice.screen { perform(practice.redraw(), now: hardware.clock.nowSeconds) }
        case .consentHeartRate:
            signals.heartRateConsent = values.heartRateConsent
            hardware.heartRateSensor?.setEnabled(values.heartRateConsent)
        case .consentRawCapture:
            if values.rawCaptureConsent {
                startRawCapture()
            } else if let capture = signals.rawCapture {
                // Withdrawn: nothing more is taken, not even the samples not yet stored; what
                // was stored while consent was given stays with the session.
                signals.rawCapture = nil
                logger.notice("raw capture stopped: consent withdrawn (\(capture.samplesTaken[.accelerometer] ?? 0) accelerometer and \(capture.samplesTaken[.ppg] ?? 0) PPG samples taken before)")
            }
        default:
            break
        }
    }
}
