#if canImport(Glibc)
import Glibc
#endif
import AmbleDrivers
import AmbleHardware
import AmbleLinux
import AmbleLinuxHardware
import AmbleStateMachines

/// GPIO outputs through `LinuxGPIOOutput` (libgpiod) on the gpio-sim chip, watched through
/// gpio-sim's sysfs `value`, and the errors of lines and chips that are not there or taken.
func runGPIOOutputChecks(_ run: HILRun, _ env: HILEnvironment) {
    let chip = env.gpioChipName
    let number = String(chip.dropFirst("gpiochip".count))

    run.check("gpio: output found by line name drives the line (sysfs value)") {
        let motor = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chip, line: .name("motor")))
        try expectEqual(motor.lineName, "\(chip) line \"motor\"", "lineName")
        try expectEqual(try env.level(.motor), 0, "level after request")
        try motor.set(active: true)
        try expectEqual(try env.level(.motor), 1, "level when active")
        try motor.set(active: false)
        try expectEqual(try env.level(.motor), 0, "level when inactive")
    }
    run.check("gpio: chip found by name, /dev path, number and label; line by offset") {
        for chipAddress in [chip, "/dev/\(chip)", number, env.gpioChipLabel] {
            let line = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chipAddress, line: .offset(SimLine.spare.rawValue)))
            try line.set(active: true)
            try expectEqual(try env.level(.spare), 1, "level via chip \"\(chipAddress)\"")
            try line.set(active: false)
            try expectEqual(try env.level(.spare), 0, "level via chip \"\(chipAddress)\"")
        }
    }
    run.check("gpio: initiallyActive drives the line from the request on") {
        let line = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chip, line: .offset(SimLine.spare.rawValue)), initiallyActive: true)
        try expectEqual(try env.level(.spare), 1, "level right after request")
        _ = line
    }
    run.check("gpio: active-low output inverts the physical level") {
        let line = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chip, line: .name("motor-n")), activeLow: true)
        try expectEqual(try env.level(.motorActiveLow), 1, "level when inactive (requested inactive)")
        try line.set(active: true)
        try expectEqual(try env.level(.motorActiveLow), 0, "level when active")
        try line.set(active: false)
        try expectEqual(try env.level(.motorActiveLow), 1, "level when inactive")
    }
    run.check("gpio: a line is busy while held and free again once released") {
        let address = GPIOLineAddress(chip: chip, line: .name("motor"))
        var first: LinuxGPIOOutput? = try LinuxGPIOOutput(address: address)
        let error = try expectThrows(GPIOError.self, "second request of \"motor\"") {
            _ = try LinuxGPIOOutput(address: address)
        }
        try expectEqual(error.kind, .lineBusy(consumer: "ambled"), "kind")
        try expectEqual(error.chip, chip, "chip")
        try expectEqual(error.line, "motor", "line")
        let asInput = try expectThrows(GPIOError.self, "request of the held line as an input") {
            _ = try LinuxGPIOInput(address: address, activeLow: false, pull: .down)
        }
        try expectEqual(asInput.kind, .lineBusy(consumer: "ambled"), "kind as input")
        try expect(first != nil, "first request gone")
        first = nil
        _ = try LinuxGPIOOutput(address: address)
    }
    run.check("gpio: missing chip is chipMissing") {
        for missing in ["gpiochip99", "/dev/gpiochip99", "99", "no-such-chip"] {
            let error = try expectThrows(GPIOError.self, "chip \(missing)") {
                _ = try LinuxGPIOOutput(address: GPIOLineAddress(chip: missing, line: .offset(0)))
            }
            try expectEqual(error.kind, .chipMissing, "kind for \(missing)")
            try expectEqual(error.chip, missing, "chip")
        }
    }
    run.check("gpio: line offset beyond the chip, negative offset and unknown name are lineMissing") {
        let lines: [GPIOLineAddress.Line] = [.offset(SimLine.count), .offset(99), .offset(-1), .name("no-such-line")]
        for line in lines {
            let error = try expectThrows(GPIOError.self, "line \(line)") {
                _ = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chip, line: line))
            }
            try expectEqual(error.kind, .lineMissing, "kind for \(line)")
            let asInput = try expectThrows(GPIOError.self, "input line \(line)") {
                _ = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: line), activeLow: false, pull: .none)
            }
            try expectEqual(asInput.kind, .lineMissing, "input kind for \(line)")
        }
    }

    runMotorChecks(run, env)
}

/// The haptics player switching a `VibrationMotor` on a real line in a timed loop, the way
/// the band's loop does, while the level gpio-sim holds is sampled.
func runMotorChecks(_ run: HILRun, _ env: HILEnvironment) {
    let chip = env.gpioChipName
    for pattern in [HapticPattern.double, .paceAlert] {
        run.check("haptics: \"\(pattern.name)\" pattern shows as its pulses on the motor line") {
            let line = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chip, line: .name("motor")))
            let samples = try play(pattern, on: line, watching: .motor, env)
            let pulses = highRuns(samples)
            let expected = expectedPulses(pattern)
            try expectEqual(pulses.count, expected.count, "pulses seen (\(describe(pulses)))")
            // The loop wakes every millisecond; under emulation a wake-up can come late.
            let tolerance = 0.03
            for (index, (seen, wanted)) in zip(pulses, expected).enumerated() {
                try expect(abs(seen.start - wanted.start) <= tolerance && abs(seen.end - wanted.end) <= tolerance,
                           "pulse \(index + 1) at \(describe([seen])), expected \(describe([wanted])) ± \(Int(tolerance * 1000)) ms")
            }
        }
    }
    run.check("haptics: \"refuse\" at strength 0.6 switches the motor with about 60 % duty") {
        let line = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chip, line: .name("motor")))
        let pattern = HapticPattern.refuse
        let samples = try play(pattern, on: line, watching: .motor, env)
        // Duty over the first on-segment (0...0.3 s), leaving out its edges.
        let window = samples.filter { $0.time > 0.02 && $0.time < 0.28 }
        let duty = Double(window.filter { $0.level == 1 }.count) / Double(max(window.count, 1))
        let switches = zip(window, window.dropFirst()).filter { $0.level != $1.level }.count
        try expect(duty > 0.45 && duty < 0.75, "duty \(duty), expected about 0.6")
        try expect(switches >= 10, "\(switches) switches in 0.26 s, expected one pair per 20 ms PWM period")
        try expect(samples.filter { $0.time > 0.31 && $0.time < 0.44 }.allSatisfy { $0.level == 0 }, "motor ran during the pause")
    }
    run.check("haptics: an active-low motor line is low while the motor runs") {
        let line = try LinuxGPIOOutput(address: GPIOLineAddress(chip: chip, line: .name("motor-n")), activeLow: true)
        let samples = try play(.short, on: line, watching: .motorActiveLow, env)
        let inverted = samples.map { Sample(time: $0.time, level: 1 - $0.level) }
        let pulses = highRuns(inverted)
        try expectEqual(pulses.count, 1, "pulses seen (\(describe(pulses)))")
        try expect(abs(pulses[0].end - pulses[0].start - 0.08) <= 0.03, "pulse \(describe(pulses)), expected 80 ms")
    }
}

struct Sample {
    var time: Double
    var level: Int
}

/// Plays `pattern` through a `VibrationMotor` on `line` with the player driving it every
/// millisecond, reading gpio-sim's level of `watched` after each step; times are from the start.
func play(_ pattern: HapticPattern, on line: LinuxGPIOOutput, watching watched: SimLine, _ env: HILEnvironment) throws -> [Sample] {
    let clock = SystemClock()
    let motor = VibrationMotor(line: line)
    var player = HapticsPlayer()
    let start = clock.nowSeconds
    player.play(pattern, now: start)
    var samples: [Sample] = []
    while true {
        let now = clock.nowSeconds
        try motor.set(running: player.motorShouldRun(now: now))
        samples.append(Sample(time: now - start, level: try env.level(watched)))
        if !player.isPlaying && now - start > pattern.durationSeconds + 0.05 { break }
        sleepSeconds(0.001)
    }
    return samples
}

/// Stretches of level 1, as (first high sample, first low sample after it).
func highRuns(_ samples: [Sample]) -> [(start: Double, end: Double)] {
    var runs: [(start: Double, end: Double)] = []
    var start: Double?
    for sample in samples {
        if sample.level == 1, start == nil { start = sample.time }
        if sample.level == 0, let begun = start {
            runs.append((begun, sample.time))
            start = nil
        }
    }
    if let begun = start, let last = samples.last { runs.append((begun, last.time)) }
    return runs
}

/// The full-strength on-segments of a pattern as (start, end) seconds.
func expectedPulses(_ pattern: HapticPattern) -> [(start: Double, end: Double)] {
    var t = 0.0
    var pulses: [(start: Double, end: Double)] = []
    for segment in pattern.segments {
        if segment.strength >= 1 { pulses.append((t, t + segment.durationSeconds)) }
        t += segment.durationSeconds
    }
    return pulses
}

func describe(_ runs: [(start: Double, end: Double)]) -> String {
    runs.map { "\(Int(($0.start * 1000).rounded()))-\(Int(($0.end * 1000).rounded())) ms" }.joined(separator: ", ")
}
