import AmbleStateMachines
import Testing

/// Every transition of the wearer's link prompt, with a manual clock.
struct LinkPromptTests {
    var prompt = LinkPrompt()

    func screen(_ actions: [LinkPrompt.Action]) -> Screen? {
        actions.reversed().compactMap { if case .show(let s) = $0 { return s } else { return nil } }.first
    }

    @Test mutating func pairingModeOpensAndClosesWithBackOrTime() {
        var actions = prompt.handle(.openPairing, now: 0)
        #expect(actions.contains(.pairingMode(open: true)))
        #expect(prompt.isActive && prompt.isPairingModeOpen)
        actions = prompt.button(.shortPressed(.next), now: 1)
        #expect(actions.isEmpty, "next does nothing in pairing mode")
        actions = prompt.button(.shortPressed(.back), now: 2)
        #expect(actions.contains(.pairingMode(open: false)) && actions.contains(.done))
        #expect(!prompt.isActive)

        _ = prompt.handle(.openPairing, now: 10)
        #expect(prompt.tick(now: 129).isEmpty)
        actions = prompt.tick(now: 130)
        #expect(actions.contains(.pairingMode(open: false)) && actions.contains(.done))
    }

    @Test mutating func aComparisonCodeIsShownAndSelectAccepts() {
        _ = prompt.handle(.openPairing, now: 0)
        var actions = prompt.handle(.confirmPairing(connection: 3, laptopName: "anna-laptop", code: "123456", buzz: nil), now: 5)
        #expect(actions.contains(.pairingMode(open: false)), "one pairing at a time")
        guard case .question(_, _, let code?, _)? = screen(actions) else { Issue.record("no code"); return }
        #expect(code == "123456")
        actions = prompt.button(.shortPressed(.select), now: 8)
        #expect(actions.contains(.pairingAnswer(connection: 3, accepted: true)))
        #expect(prompt.button(.shortPressed(.select), now: 9).isEmpty, "one answer only")
        actions = prompt.handle(.pairingResolved(connection: 3, paired: true), now: 10)
        #expect(screen(actions) == .notice(title: "Paired", detail: "The laptop can sync now"))
        actions = prompt.tick(now: 14)
        #expect(actions == [.done])
    }

    @Test mutating func backDeclinesAndAnotherConnectionsResultIsIgnored() {
        _ = prompt.handle(.openPairing, now: 0)
        _ = prompt.handle(.confirmPairing(connection: 3, laptopName: "x", code: "000001", buzz: nil), now: 1)
        #expect(prompt.handle(.pairingResolved(connection: 4, paired: true), now: 2).isEmpty)
        let actions = prompt.button(.shortPressed(.back), now: 3)
        #expect(actions.contains(.pairingAnswer(connection: 3, accepted: false)))
        #expect(screen(actions) == .notice(title: "Not paired", detail: "Nothing was stored"))
    }

    @Test mutating func aPasskeyIsBuzzedAgainUntilAnswered() {
        let buzz = HapticPattern.passkey("2047")
        _ = prompt.handle(.openPairing, now: 0)
        let actions = prompt.handle(.confirmPairing(connection: 1, laptopName: "x", code: nil, buzz: buzz), now: 0)
        #expect(actions.contains(.vibrate(buzz)))
        let repeatAt = buzz.durationSeconds + prompt.buzzRepeatPauseSeconds
        #expect(prompt.tick(now: repeatAt - 0.1).isEmpty)
        #expect(prompt.tick(now: repeatAt) == [.vibrate(buzz)])
        _ = prompt.button(.shortPressed(.select), now: repeatAt + 1)
        #expect(prompt.tick(now: repeatAt * 3).isEmpty, "no buzz once answered")
    }

    @Test func thePasskeyPatternHasNPulsesPerDigitAndALongOneForZero() {
        let pattern = HapticPattern.passkey("2047")
        let pulses = pattern.segments.filter { $0.strength > 0 }
        #expect(pulses.count == 2 + 1 + 4 + 7)
        #expect(pulses.filter { $0.durationSeconds > 0.5 }.count == 1, "the 0")
        let gaps = pattern.segments.filter { $0.strength == 0 && $0.durationSeconds > 1 }
        #expect(gaps.count == 3, "a long pause between the four digits")
    }

    @Test mutating func aConfirmationOutsidePairingModeIsDeclined() {
        let actions = prompt.handle(.confirmPairing(connection: 7, laptopName: "x", code: "1", buzz: nil), now: 0)
        #expect(actions == [.pairingAnswer(connection: 7, accepted: false)])
        #expect(!prompt.isActive)
    }

    @Test mutating func theLaptopLeavingOrTimeRunningOutEndsTheQuestion() {
        _ = prompt.handle(.openPairing, now: 0)
        _ = prompt.handle(.confirmPairing(connection: 1, laptopName: "x", code: "1", buzz: nil), now: 0)
        var actions = prompt.handle(.pairingEnded(connection: 1), now: 3)
        #expect(screen(actions) == .notice(title: "Not paired", detail: "The laptop left before pairing finished"))
        _ = prompt.tick(now: 10)

        _ = prompt.handle(.openPairing, now: 20)
        _ = prompt.handle(.confirmPairing(connection: 2, laptopName: "x", code: "1", buzz: nil), now: 20)
        _ = prompt.button(.shortPressed(.select), now: 21)
        actions = prompt.tick(now: 20 + prompt.questionSeconds)
        #expect(actions.contains(.pairingAnswer(connection: 2, accepted: false)), "the band says no even after a yes when time runs out")
        #expect(screen(actions) == .notice(title: "Not paired", detail: "No answer in time"))
    }

    @Test mutating func deleteAllNeedsSelectAndOtherwiseKeepsEverything() {
        var actions = prompt.handle(.confirmDeleteAll, now: 0)
        guard case .question(let title, _, _, _)? = screen(actions) else { Issue.record("no question"); return }
        #expect(title == "Delete everything?")
        #expect(prompt.button(.shortPressed(.next), now: 1).isEmpty)
        actions = prompt.button(.shortPressed(.select), now: 2)
        #expect(actions.first == .deleteAllAnswer(accepted: true))
        _ = prompt.tick(now: 10)

        _ = prompt.handle(.confirmDeleteAll, now: 20)
        actions = prompt.button(.longPressed(.select), now: 21)
        #expect(actions.first == .deleteAllAnswer(accepted: false), "a long press goes back")
        _ = prompt.tick(now: 30)

        _ = prompt.handle(.confirmDeleteAll, now: 40)
        actions = prompt.tick(now: 40 + prompt.questionSeconds)
        #expect(actions.first == .deleteAllAnswer(accepted: false))
    }

    @Test mutating func aWipeAskedDuringAnotherQuestionIsDeclined() {
        _ = prompt.handle(.openPairing, now: 0)
        #expect(prompt.handle(.confirmDeleteAll, now: 1) == [.deleteAllAnswer(accepted: false)])
        #expect(prompt.isPairingModeOpen)
    }

    @Test mutating func forgettingLaptopsIsConfirmed() {
        _ = prompt.handle(.confirmForgetLaptops, now: 0)
        var actions = prompt.button(.shortPressed(.back), now: 1)
        #expect(!actions.contains(.forgetLaptops))
        _ = prompt.button(.shortPressed(.select), now: 2)   // dismisses the result
        _ = prompt.handle(.confirmForgetLaptops, now: 3)
        actions = prompt.button(.shortPressed(.select), now: 4)
        #expect(actions.contains(.forgetLaptops))
        _ = prompt.tick(now: 9)
        #expect(!prompt.isActive)
    }
}
