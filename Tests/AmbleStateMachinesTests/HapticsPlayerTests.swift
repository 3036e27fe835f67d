import AmbleStateMachines
import Testing

struct HapticsPlayerTests {
    /// The motor level every millisecond from 0 to `seconds`.
    func trace(_ pattern: HapticPattern, seconds: Double) -> [Bool] {
        var player = HapticsPlayer()
        player.play(pattern, now: 0)
        return stride(from: 0.0, to: seconds, by: 0.001).map { player.motorShouldRun(now: $0) }
    }

    @Test func doublePulseHasTwoOnPeriods() {
        let levels = trace(.double, seconds: 0.5)
        let rising = zip(levels, levels.dropFirst()).filter { !$0.0 && $0.1 }.count + (levels.first == true ? 1 : 0)
        #expect(rising == 2)
        let onMilliseconds = levels.filter { $0 }.count
        #expect(abs(onMilliseconds - 200) <= 2)
    }

    @Test func patternEndsWithTheMotorOff() {
        var player = HapticsPlayer()
        player.play(.long, now: 10)
        let during = player.motorShouldRun(now: 10.2)
        let after = player.motorShouldRun(now: 10.6)
        #expect(during)
        #expect(!after)
        #expect(!player.isPlaying)
    }

    @Test func strengthIsADutyCycle() {
        let levels = trace(.refuse, seconds: 0.3)
        let share = Double(levels.filter { $0 }.count) / Double(levels.count)
        #expect(abs(share - 0.6) < 0.05)
    }

    @Test func paceAlertIsThreePulses() {
        let levels = trace(.paceAlert, seconds: 1)
        let rising = zip(levels, levels.dropFirst()).filter { !$0.0 && $0.1 }.count + (levels.first == true ? 1 : 0)
        #expect(rising == 3)
    }
}
