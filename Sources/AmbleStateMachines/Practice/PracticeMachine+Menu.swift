import AmbleModel

/// The menu and what leads from it to a session: the reduction, the countdown; the notices and
/// the summary that lead back to it.
extension PracticeMachine {
    // MARK: Presses

    mutating func menuPressed(_ press: Press, selected: MenuItem) -> [PracticeAction] {
        if press.isNext {
            state = .menu(selected: selected.following)
            return .tick(showing: menuScreen(selected: selected.following))
        }
        guard press.isSelect else { return [] }
        switch selected {
        case .calibrate: return startCountdown(.calibration)
        case .mindfulWalk: return chooseReduction()
        case .settings: return openSettings()
        }
    }

    mutating func reductionPressed(_ press: Press, index: Int) -> [PracticeAction] {
        if press.goesBack { return backToMenu(at: .mindfulWalk) }
        if press.isNext {
            let next = (index + 1) % values.reductionChoices.count
            state = .choosingReduction(index: next)
            return .tick(showing: reductionScreen(index: next))
        }
        guard press.isSelect else { return [] }
        let percent = reduction(at: index)
        var actions: [PracticeAction] = []
        if percent != values.reductionPercent {
            values.reductionPercent = percent
            actions.append(.saveSetting(.reductionPercent, values.text(.reductionPercent)))
        }
        return actions + startCountdown(.walk(reductionPercent: percent))
    }

    mutating func countdownPressed(_ press: Press, _ activity: Activity) -> [PracticeAction] {
        guard press.goesBack else { return [] }
        return backToMenu(at: activity.menuItem)
    }

    /// Any press leaves a notice.
    mutating func noticePressed(then: MenuItem) -> [PracticeAction] {
        state = .menu(selected: then)
        return [.show(menuScreen(selected: then))]
    }

    mutating func summaryPressed(_ press: Press, pages: [Screen], page: Int) -> [PracticeAction] {
        if press.isNext, pages.count > 1 {
            let turned = (page + 1) % pages.count
            state = .summary(pages: pages, page: turned, secondsLeft: settings.summarySeconds)
            return .tick(showing: pages[turned])
        }
        guard press.isSelect || press.goesBack else { return [] }
        state = .menu(selected: .mindfulWalk)
        return [.show(menuScreen(selected: .mindfulWalk))]
    }

    // MARK: Seconds

    mutating func noticeSecond(secondsLeft left: Int, then: MenuItem) -> [PracticeAction] {
        guard left <= 1 else {
            state = .notice(secondsLeft: left - 1, then: then)
            return []
        }
        state = .menu(selected: then)
        return [.show(menuScreen(selected: then))]
    }

    mutating func summarySecond(pages: [Screen], page: Int, secondsLeft left: Int) -> [PracticeAction] {
        guard left <= 1 else {
            state = .summary(pages: pages, page: page, secondsLeft: left - 1)
            return []
        }
        state = .menu(selected: .mindfulWalk)
        return [.show(menuScreen(selected: .mindfulWalk))]
    }

    mutating func countdownSecond(_ activity: Activity, secondsLeft left: Int, _ report: SecondReport) -> [PracticeAction] {
        guard left > 1 else { return begin(activity, unixSeconds: report.unixSeconds) }
        state = .countdown(activity, secondsLeft: left - 1)
        return .tick(showing: .countdown(title: activity.countdownTitle, secondsLeft: left - 1))
    }

    // MARK: Steps

    /// Mindful Walk: the wearer's reductions, the remembered one selected; a wearer not yet
    /// calibrated is told to calibrate first.
    mutating func chooseReduction() -> [PracticeAction] {
        guard calibration != nil else {
            state = .notice(secondsLeft: 4)
            return .refuse(showing: .notice(title: "Calibrate first", detail: "Mindful Walk needs your normal pace"))
        }
        let index = values.reductionChoices.firstIndex(of: values.reductionPercent) ?? 0
        state = .choosingReduction(index: index)
        return .tick(showing: reductionScreen(index: index))
    }

    /// The countdown before a calibration or walk, its seconds counted from this press.
    mutating func startCountdown(_ activity: Activity) -> [PracticeAction] {
        state = .countdown(activity, secondsLeft: settings.countdownSeconds)
        return [.restartSeconds] + .confirm(showing: .countdown(title: activity.countdownTitle, secondsLeft: settings.countdownSeconds))
    }

    /// Back to the menu, at `item`, with a tick.
    mutating func backToMenu(at item: MenuItem) -> [PracticeAction] {
        state = .menu(selected: item)
        return .tick(showing: menuScreen(selected: item))
    }

    /// The countdown is over: the calibration or the walk begins (a walk needs a calibration).
    mutating func begin(_ activity: Activity, unixSeconds: Double) -> [PracticeAction] {
        switch activity {
        case .calibration: return beginCalibration(unixSeconds: unixSeconds)
        case .walk(let reduction): return beginWalk(reductionPercent: reduction, unixSeconds: unixSeconds)
        }
    }
}
