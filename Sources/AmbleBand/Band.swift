import AmbleBandStore
import AmbleDrivers
import AmbleHardware
import AmbleLinux
import AmbleModel
import AmbleSignal
import AmbleStateMachines
import AmbleSync
import Logging

/// The band: samples the sensors, counts steps, estimates heart rate, runs the practice,
/// drives the motor, records sessions and serves them to companions.
///
/// It wires six parts, each with one job, and owns only the loop's timing:
/// - `hardware` (`BandHardware`): clock, sensor channels, motor, buttons, display;
/// - `signals` (`SignalPipeline`): samples in, one `SecondReport` per second out;
/// - `practice` (`BandPractice`): the practice and link-prompt machines, the haptics;
/// - `recorder` (`BandRecorder`): the store, sessions, pruning, the date's offset;
/// - `sessions` (`SessionKeeper`): the session under way between the pipeline and the store;
/// - `link` (`SyncService`): paired laptops over TCP or serial, when served; each pass returns
///   the events (`LinkEvent`) the band carries out, as the practice returns actions.
///
/// One loop, one thread. Each time round (`tick()`): read the sensor FIFOs when due, turn button
/// edges into presses, close a second when one has passed, switch the motor, answer the sync
/// link. Between passes its host (`BandHost`) waits: on a real board until the next thing is due
/// or a descriptor becomes readable; on the simulated board it paces band time, plays the
/// script and reads the keys (`SimulatedHost`). The band never asks which host it has.
public final class Band {
    var hardware: BandHardware
    var signals: SignalPipeline
    var practice: BandPractice
    let recorder: BandRecorder
    var sessions: SessionKeeper
    let link: SyncService?
    /// The link's time (real time, whatever the simulated board's speed).
    private let linkClock: any BandClock
    /// What runs the loop (`run()` hands the band to it).
    let host: any BandHost
    /// SIGTERM and SIGINT as a readable descriptor; nil in tests that build several bands.
    let signalWatcher: SignalWatcher?
    let console: Console
    let logger: Logger

    // Timing (band seconds).
    let startSeconds: Double
    var nextSensorRead: Double
    var nextSecond: Double
    /// Set by a signal, or by the host (the script's end, the `q` key): the loop stops after this pass.
    var stopRequested = false
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
         linkClock: any BandClock, host: any BandHost, signalWatcher: SignalWatcher?, console: Console, logger: Logger) {
        self.hardware = hardware
        self.linkClock = linkClock
        self.signals = signals
        self.practice = practice
        self.recorder = recorder
        sessions = SessionKeeper(recorder: recorder, logger: logger)
        self.link = link
        self.host = host
        self.signalWatcher = signalWatcher
        self.console = console
        self.logger = logger
        startSeconds = hardware.clock.nowSeconds
        nextSensorRead = startSeconds
        nextSecond = startSeconds + 1
    }

    // MARK: What tests and scripts look at

    /// The band's store.
    public var store: BandStore { recorder.store }
    /// What the band shows now (display and status line).
    public var screenShown: Screen { practice.screen }
    /// The OLED's driver, when the board has one.
    public var display: SSD1306? { hardware.display?.driver }
    /// The band's date now (the system clock plus the offset a laptop set).
    public var unixSeconds: Double { hardware.clock.unixSeconds + recorder.unixOffsetSeconds }

    // MARK: Running

    /// Runs until SIGTERM/SIGINT (or the script's end with `exitAfterScript`); the session under
    /// way is closed and stored first. Returns the exit status.
    public func run() -> Int32 {
        startIfNeeded()
        host.run(self)
        shutDown()
        return 0
    }

    /// Descriptors that wake the loop: a laptop's bytes, a button edge, a signal.
    var pollDescriptors: [Int32] {
        (link?.pollDescriptors ?? []) + hardware.pollDescriptors + (signalWatcher.map { [$0.pollDescriptor] } ?? [])
    }

    func startIfNeeded() {
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
            let band = LinkBandState(unixSeconds: unixSeconds, isWearerBusy: practice.isBusy)
            perform(link.service(now: linkClock.nowSeconds, band: band), now: now)
        }
        performLink(practice.tick(now: now), now: now)
        recorder.pruneIfDue(now: now, unixSeconds: unixSeconds)
        if recorder.condition != practice.machine.storage { perform(practice.storageChanged(recorder.condition), now: now) }
        if let signal = signalWatcher?.takeSignal() {
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
        sessions.storeRawSamples(signals: &signals)
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
                sessions.begin(kind, startUnixSeconds: start, parameters: parameters, now: now,
                               rawCapture: practice.machine.values.rawCaptureConsent, signals: &signals)
            case .recordSecond(let row, let earlier, let progress):
                recorder.append(row, earlier: earlier, progress: progress)
            case .endSession(let summary):
                // The walk's last steps come now, with its end: the summary as stored counts them.
                if let stored = sessions.end(summary, signals: &signals) { perform(practice.summaryStored(stored), now: now) }
            case .discardSession:
                sessions.discard(signals: &signals)
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
                link?.wearerAnswered(pairing: connection, accepted: accepted, unixSeconds: unixSeconds)
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

    /// How long the loop may wait for a descriptor before its next pass, seconds (0 ... 0.5):
    /// until the sensors or a second are due, the motor switches, or soon while a button is held.
    var secondsUntilSomethingIsDue: Double {
        let now = hardware.clock.nowSeconds
        var wake = min(nextSensorRead, nextSecond)
        if let change = practice.nextMotorChange(after: now) { wake = min(wake, change) }
        if hardware.isAnyButtonHeld { wake = min(wake, now + 0.01) }
        return min(max(0, wake - now), 0.5)
    }

    /// Closes the session under way, stores it, stops the motor and the sync link.
    public func shutDown() {
        perform(practice.finish(), now: hardware.clock.nowSeconds)
        try? hardware.motor.set(running: false)
        link?.close()
        drawStatus(now: hardware.clock.nowSeconds)
        console.finish()
        logger.info("stopped; longest loop pass \(Int((longestTickSeconds * 1000).rounded())) ms")
    }
}

/// What the link asked for: the band carries it out after each pass of the link.
extension Band {
    func perform(_ events: [LinkEvent], now: Double) {
        for event in events {
            switch event {
            case .prompt(let request):
                performLink(practice.linkRequested(request, now: now), now: now)
            case .dateSet(let moved, let target):
                recorder.moveDate(bySeconds: moved, toUnixSeconds: target)
                dateMoved(bySeconds: moved)
                logger.notice("a laptop set the band's date (moved \(Int(moved.rounded())) s)")
            case .settingChanged(let setting, let value):
                settingChanged(setting, to: value)
            case .laptopSettingChanged(let setting, let value):
                logger.notice("a laptop set its \(setting.rawValue) = \(value)")
                studyRemindersChanged()
            }
        }
    }

    /// A laptop changed a setting (already stored): the band applies what it can at once.
    func settingChanged(_ setting: BandSetting, to value: String) {
        logger.notice("a laptop set \(setting.rawValue) = \(value)")
        apply(setting, value)
    }

    /// The paired laptops' study reminders, read again (one was set, laptops were forgotten).
    func studyRemindersChanged() {
        practice.setStudyReminders(recorder.studyReminders())
        recorder.saveReminderState(practice.reminders.state)
    }
}

extension Band {
    /// Starts raw capture for the session under way, if one is and none runs.
    func startRawCapture() { sessions.startRawCapture(signals: &signals) }

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
