/// A few options on screen, one of them selected: `next` moves to the following one (after
/// the last, the first), `select` takes it. A case says what the option means, so the code that
/// acts on a choice switches over meanings, never over positions on the screen.
protocol MenuChoice: CaseIterable, Equatable where AllCases == [Self] {
    /// The option as the screen shows it.
    var label: String { get }
}

extension MenuChoice {
    /// The option `next` moves to.
    var following: Self {
        let all = Self.allCases
        return all[(position + 1) % all.count]
    }

    /// Where the option stands on the screen, from 0.
    var position: Int { Self.allCases.firstIndex(of: self)! }

    static var labels: [String] { allCases.map(\.label) }
}

extension Screen {
    /// A question with its options, `selected` highlighted.
    static func choice<Option: MenuChoice>(title: String, selected: Option) -> Screen {
        .choice(title: title, options: Option.labels, selected: selected.position)
    }
}

/// "End the walk?"
enum EndChoice: MenuChoice {
    case save, discard, keepWalking

    var label: String {
        switch self {
        case .save: return "Save"
        case .discard: return "Discard"
        case .keepWalking: return "Continue"
        }
    }
}

/// What the wearer does with a reminder.
enum ReminderChoice: MenuChoice {
    case walkNow, snoozeQuarterHour, snoozeHour, dismiss

    /// How long a snooze lasts, minutes (nil: not a snooze).
    var snoozeMinutes: Int? {
        switch self {
        case .snoozeQuarterHour: return 15
        case .snoozeHour: return 60
        case .walkNow, .dismiss: return nil
        }
    }

    var label: String {
        switch self {
        case .walkNow: return "Walk now"
        case .snoozeQuarterHour, .snoozeHour: return "Snooze \(snoozeMinutes ?? 0) min"
        case .dismiss: return "Dismiss"
        }
    }
}

extension Array where Element == PracticeAction {
    /// A press moved the wearer on: a short tick, and the screen now showing.
    static func tick(showing screen: Screen) -> [PracticeAction] { [.vibrate(.short), .show(screen)] }

    /// Something was chosen, saved or snoozed: a double buzz, and the screen now showing.
    static func confirm(showing screen: Screen) -> [PracticeAction] { [.vibrate(.double), .show(screen)] }

    /// Not possible, failed or thrown away: the refusing buzz, and the screen that says so.
    static func refuse(showing screen: Screen) -> [PracticeAction] { [.vibrate(.refuse), .show(screen)] }
}

/// A debounced press as the practice reads it.
struct Press {
    let event: ButtonEvent

    init(_ event: ButtonEvent) { self.event = event }

    /// Back, short or long.
    var isBack: Bool { event == .shortPressed(.back) || event == .longPressed(.back) }
    /// Back, or a long press of select (on a band without a back button).
    var goesBack: Bool { isBack || event == .longPressed(.select) }
    var isNext: Bool { event == .shortPressed(.next) }
    var isSelect: Bool { event == .shortPressed(.select) }
}
