import AmbleModel

/// The reminder's prompt: walk now, snooze, dismiss; unanswered, it is missed for today.
extension PracticeMachine {
    mutating func reminderDue(_ text: String) -> [PracticeAction] {
        switch state {
        case .walking, .endingWalk, .confirmingDiscard:
            return [.dismissReminder]   // the wearer is walking already
        case .countdown, .calibrating:
            return [.snoozeReminder(minutes: 15)]
        default:
            state = .reminder(text: text, selected: .walkNow, secondsLeft: settings.questionSeconds * 4)
            return .confirm(showing: .choice(title: text, selected: ReminderChoice.walkNow))
        }
    }

    mutating func reminderPressed(_ press: Press, text: String, selected: ReminderChoice) -> [PracticeAction] {
        if press.isNext {
            state = .reminder(text: text, selected: selected.following, secondsLeft: settings.questionSeconds)
            return .tick(showing: .choice(title: text, selected: selected.following))
        }
        if press.goesBack {
            state = .menu(selected: .mindfulWalk)
            return [.snoozeReminder(minutes: 15)] + .tick(showing: menuScreen(selected: .mindfulWalk))
        }
        guard press.isSelect else { return [] }
        switch selected {
        case .walkNow:
            return [.dismissReminder] + chooseReduction()
        case .snoozeQuarterHour, .snoozeHour:
            state = .menu(selected: .mindfulWalk)
            return [.snoozeReminder(minutes: selected.snoozeMinutes ?? 15)] + .confirm(showing: menuScreen(selected: .mindfulWalk))
        case .dismiss:
            state = .menu(selected: .mindfulWalk)
            return [.dismissReminder] + .tick(showing: menuScreen(selected: .mindfulWalk))
        }
    }

    mutating func reminderSecond(text: String, selected: ReminderChoice, secondsLeft left: Int) -> [PracticeAction] {
        guard left <= 1 else {
            state = .reminder(text: text, selected: selected, secondsLeft: left - 1)
            return []
        }
        // Unanswered: missed for today (the band may be off the wrist).
        state = .menu(selected: .mindfulWalk)
        return [.dismissReminder, .show(menuScreen(selected: .mindfulWalk))]
    }
}
