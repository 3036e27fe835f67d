import AmbleModel
import AmbleStateMachines

/// The wearer's side of the band: the practice (menu, calibration, mindful walk, settings),
/// the reminders' schedule (the wearer's and the studies'), the link prompt that takes the buttons and the screen while a
/// laptop pairs or asks to wipe, and the haptics player that turns patterns and the
/// metronome into motor on/off times.
///
/// It routes presses to whichever has the wearer's attention and keeps what the screen shows;
/// the band's loop carries out the actions the two machines return.
struct BandPractice {
    private(set) var machine: PracticeMachine
    private(set) var linkPrompt = LinkPrompt()
    private(set) var reminders: ReminderSchedule
    /// The studies' reminders the paired laptops ask for (`LaptopSetting.studyReminder`).
    private var studyReminders: [StudyReminder]
    /// The reminder last given: the one the practice's snooze or dismissal is about.
    private var givenReminder: String?
    private var haptics = HapticsPlayer()
    /// What the band shows now (display and status line).
    private(set) var screen: Screen = .notice(title: "Starting", detail: "")
    /// What to tell the wearer first (what a power cut did), if anything.
    private let startNotice: (title: String, detail: String)?

    init(machine: PracticeMachine, studyReminders: [StudyReminder] = [], reminderState: ReminderSchedule.State = .init(),
         startNotice: (title: String, detail: String)? = nil) {
        self.machine = machine
        self.studyReminders = studyReminders
        self.reminders = ReminderSchedule(settings: machine.values, studies: studyReminders, state: reminderState)
        self.startNotice = startNotice
        haptics.pwmPeriodSeconds = 0.02
    }

    /// Whether the wearer is in a countdown, calibration, walk or a prompt.
    var isBusy: Bool { !machine.isIdle || linkPrompt.isActive }

    /// The calibration in use (its step length counts for the energy of a walk).
    var calibration: Calibration? { machine.calibration }

    // MARK: Events in, actions out

    /// The practice's first screen (the start notice first, when there is one).
    mutating func start() -> [PracticeAction] { machine.start(notice: startNotice) }

    /// A debounced press: the prompt's while it is active, else the practice's.
    mutating func buttonPressed(_ event: ButtonEvent, now: Double) -> Routed {
        linkPrompt.isActive ? .link(linkPrompt.button(event, now: now)) : .practice(machine.handle(.button(event)))
    }

    /// A second closed. A prompt on screen keeps it: the practice's screens are held back,
    /// while its seconds still count and record.
    mutating func secondElapsed(_ report: SecondReport) -> [PracticeAction] {
        let actions = machine.handle(.secondElapsed(report))
        guard linkPrompt.isActive else { return actions }
        return actions.filter { if case .show = $0 { return false } else { return true } }
    }

    mutating func linkRequested(_ request: LinkPrompt.Request, now: Double) -> [LinkPrompt.Action] {
        linkPrompt.handle(request, now: now)
    }

    /// The prompt's timeouts and repeated buzzes.
    mutating func tick(now: Double) -> [LinkPrompt.Action] { linkPrompt.tick(now: now) }

    /// The walk as stored (with the steps released at its end): the summary shows it.
    mutating func summaryStored(_ summary: SessionSummary) -> [PracticeAction] {
        let actions = machine.summaryStored(summary)
        return linkPrompt.isActive ? [] : actions
    }

    /// The store's condition changed (full, damaged, sound again): the practice buzzes and
    /// shows it over its menu; a prompt on screen keeps the screen.
    mutating func storageChanged(_ condition: StoreCondition) -> [PracticeAction] {
        let actions = machine.storageChanged(condition)
        guard linkPrompt.isActive else { return actions }
        return actions.filter { if case .show = $0 { return false } else { return true } }
    }

    /// The practice's current screen again (a prompt ended).
    mutating func redraw() -> [PracticeAction] { machine.redraw() }

    /// Ends whatever is under way (the band stops): a walk is closed for storing.
    mutating func finish() -> [PracticeAction] { machine.finish() }

    /// The band was wiped: the practice starts over uncalibrated with the settings' defaults
    /// (`values`, read back from the emptied store), and no reminder is pending.
    mutating func wiped(values: BandSettingValues) {
        machine = PracticeMachine(settings: machine.settings, values: values, calibration: nil,
                                  defaultStepLengthMeters: machine.defaultStepLengthMeters)
        studyReminders = []
        reminders = ReminderSchedule(settings: values)
        haptics.setMetronome(periodSeconds: nil, now: 0)
    }

    /// A laptop set a setting (its stored text, validated): the practice and the reminders use
    /// it from now on.
    mutating func apply(_ setting: BandSetting, _ text: String) {
        machine.apply(setting, text)
        settingsChanged()
    }

    /// The practice's values changed (the wearer chose one on the band, typed, or a laptop
    /// set one): the reminders follow.
    mutating func settingsChanged() {
        reminders.update(settings: machine.values, studies: studyReminders)
    }

    /// The paired laptops' study reminders changed (a sync set one, laptops were forgotten).
    mutating func setStudyReminders(_ studies: [StudyReminder]) {
        studyReminders = studies
        reminders.update(settings: machine.values, studies: studies)
    }

    mutating func setDefaultStepLength(_ meters: Double) { machine.setDefaultStepLength(meters) }

    // MARK: Reminders

    /// Whether a reminder is due at `unixSeconds` (local time `utcOffsetSeconds` east of UTC):
    /// the practice's answer to it (it shows it unless the wearer is busy), and whether the
    /// schedule's state changed and must be kept.
    mutating func checkReminder(unixSeconds: Double, utcOffsetSeconds: Int) -> (actions: [PracticeAction], stateChanged: Bool) {
        let before = reminders.state
        guard let reminder = reminders.due(unixSeconds: unixSeconds, utcOffsetSeconds: utcOffsetSeconds) else {
            return ([], reminders.state != before)
        }
        givenReminder = reminder.id
        // A laptop's question on screen: the reminder comes again in a quarter of an hour.
        let actions = linkPrompt.isActive ? [.snoozeReminder(minutes: 15)] : machine.handle(.reminderDue(text: reminder.text))
        return (actions, true)
    }

    /// The practice snoozed the reminder last given.
    mutating func snoozeReminder(minutes: Int, unixSeconds: Double) {
        guard let givenReminder else { return }
        reminders.snooze(givenReminder, minutes: minutes, unixSeconds: unixSeconds)
    }

    /// The practice dismissed the reminder last given.
    mutating func dismissReminder() {
        guard let givenReminder else { return }
        reminders.dismiss(givenReminder)
    }

    /// The band's date moved: a snooze still ends its minutes from when it was asked.
    mutating func dateMoved(bySeconds seconds: Double) { reminders.dateMoved(bySeconds: seconds) }

    /// What either machine asked the screen to show.
    mutating func show(_ next: Screen) { screen = next }

    // MARK: Haptics

    /// Starts `pattern` (already scaled to the motor's strength) at band time `now`.
    mutating func vibrate(_ pattern: HapticPattern, now: Double) { haptics.play(pattern, now: now) }

    /// Ticks every `periodSeconds` from `now`, or none (the practice's metronome).
    mutating func setMetronome(periodSeconds: Double?, now: Double) { haptics.setMetronome(periodSeconds: periodSeconds, now: now) }

    var isMetronomeOn: Bool { haptics.isMetronomeOn }

    /// Whether the motor should be on at band time `now`.
    mutating func motorShouldRun(now: Double) -> Bool { haptics.motorShouldRun(now: now) }

    /// When the motor next switches, band seconds, if a pattern plays.
    func nextMotorChange(after now: Double) -> Double? { haptics.nextChangeSeconds(after: now) }

    /// Actions from one of the two machines.
    enum Routed {
        case practice([PracticeAction])
        case link([LinkPrompt.Action])
    }
}
