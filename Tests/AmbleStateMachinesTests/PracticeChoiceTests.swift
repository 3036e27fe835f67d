import AmbleModel
@testable import AmbleStateMachines
import Testing

/// The practice's typed choices and presses, which its handlers switch over.
struct PracticeChoiceTests {
    @Test func everyChoiceShowsTheWordsItMeansInOrder() {
        #expect(EndChoice.labels == ["Save", "Discard", "Continue"])
        #expect(ReminderChoice.labels == ["Walk now", "Snooze 15 min", "Snooze 60 min", "Dismiss"])
        #expect(PracticeMachine.MenuItem.labels == ["Calibrate", "Mindful Walk", "Settings"])
        #expect(EndChoice.allCases.map(\.position) == [0, 1, 2])
    }

    @Test func nextMovesThroughEveryOptionAndBackToTheFirst() {
        func cycle<Option: MenuChoice>(from first: Option) -> [Option] {
            var seen = [first]
            while seen.count <= Option.allCases.count { seen.append(seen.last!.following) }
            return seen
        }
        #expect(cycle(from: EndChoice.save) == [.save, .discard, .keepWalking, .save])
        #expect(cycle(from: ReminderChoice.walkNow) == [.walkNow, .snoozeQuarterHour, .snoozeHour, .dismiss, .walkNow])
        #expect(cycle(from: PracticeMachine.MenuItem.settings) == [.settings, .calibrate, .mindfulWalk, .settings])
    }

    @Test func aPressReadsAsTheWearerMeantIt() {
        // (press, back, goes back, next, select)
        let table: [(ButtonEvent, Bool, Bool, Bool, Bool)] = [
            (.shortPressed(.next), false, false, true, false),
            (.shortPressed(.select), false, false, false, true),
            (.shortPressed(.back), true, true, false, false),
            (.longPressed(.back), true, true, false, false),
            (.longPressed(.select), false, true, false, false),   // a band without a back button
            (.longPressed(.next), false, false, false, false),
        ]
        for (event, back, goesBack, next, select) in table {
            let press = Press(event)
            #expect([press.isBack, press.goesBack, press.isNext, press.isSelect] == [back, goesBack, next, select], "\(event)")
        }
    }

    @Test func theBuzzAndScreenPairsAreTheOnesTheWearerKnows() {
        let screen = Screen.notice(title: "t", detail: "d")
        #expect([PracticeAction].tick(showing: screen) == [.vibrate(.short), .show(screen)])
        #expect([PracticeAction].confirm(showing: screen) == [.vibrate(.double), .show(screen)])
        #expect([PracticeAction].refuse(showing: screen) == [.vibrate(.refuse), .show(screen)])
    }

    @Test func anUnansweredEndQuestionLetsTheWalkGoOnAndEachAnswerDoesWhatItSays() {
        let calibration = Calibration(cadenceStepsPerMinute: 110, stepLengthMeters: nil, unixSeconds: 0)
        for choice in EndChoice.allCases {
            var band = PracticeDriver(calibration: calibration)
            band.startWalk()
            band.seconds(5, cadence: 90)
            band.press(.back)
            #expect(band.lastScreen == .choice(title: "End the walk?", selected: EndChoice.save))
            band.press(.next, times: choice.position)
            band.press(.select)
            switch choice {
            case .save: #expect(band.summaries.count == 1)
            case .discard: #expect(band.lastScreen.map { if case .question = $0 { true } else { false } } == true)
            case .keepWalking: #expect(band.lastWalkingScreen != nil && band.summaries.isEmpty)
            }
        }
        var band = PracticeDriver(calibration: calibration)
        band.startWalk()
        band.press(.back)
        band.seconds(PracticeSettings().questionSeconds, cadence: 90)
        #expect(band.lastWalkingScreen?.elapsedSeconds == PracticeSettings().questionSeconds, "back to the walk, its seconds all counted")
        #expect(band.machine.isRecording)
    }
}
