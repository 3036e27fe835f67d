#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware
import AmbleLinux
import AmbleLinuxHardware
import AmbleStateMachines

/// One change of a simulated button's pull, `atSeconds` after the scenario starts.
struct PullStep {
    var atSeconds: Double
    /// true: write `pull-up`; false: `pull-down`.
    var up: Bool
}

/// What a scenario saw: the edges as drained, the debounced events with the time they came
/// out, and when each pull was written (monotonic seconds just before and after the write).
struct ButtonRecord {
    var edges: [GPIOEdge] = []
    var events: [(event: ButtonEvent, atSeconds: Double)] = []
    var writes: [(before: Double, after: Double, up: Bool)] = []
    var levelsWhileHeld: [Bool] = []
}

/// Presses and releases a gpio-sim line by writing its pull, while a loop like the band's
/// waits on the input's descriptor, drains its edges into a `ButtonDebouncer` and advances
/// the debouncer with the clock. Returns everything it saw.
func runScenario(_ steps: [PullStep], untilSeconds end: Double, input: LinuxGPIOInput, line: SimLine,
                 debouncer: inout ButtonDebouncer, sampleLevelAt: Double? = nil, _ env: HILEnvironment) throws -> ButtonRecord {
    let clock = SystemClock()
    var record = ButtonRecord()
    let start = clock.nowSeconds
    var next = 0
    var sampled = false
    guard let fd = input.pollDescriptor else { throw CheckFailure("input has no poll descriptor") }
    while true {
        let now = clock.nowSeconds
        if next < steps.count, now >= start + steps[next].atSeconds {
            let before = clock.nowSeconds
            try env.pull(line, up: steps[next].up)
            record.writes.append((before, clock.nowSeconds, steps[next].up))
            next += 1
            continue
        }
        if let at = sampleLevelAt, !sampled, now >= start + at {
            record.levelsWhileHeld.append(try input.isActive())
            sampled = true
        }
        if next == steps.count && now >= start + end { break }
        let wake = min(next < steps.count ? start + steps[next].atSeconds : start + end, now + 0.005)
        _ = waitForReadable([fd], timeoutSeconds: max(0, wake - now))
        for edge in try input.drainEdges() {
            record.edges.append(edge)
            record.events += debouncer.edge(becameActive: edge.becameActive, atSeconds: edge.timeSeconds).map { ($0, clock.nowSeconds - start) }
        }
        let t = clock.nowSeconds
        record.events += debouncer.update(now: t).map { ($0, t - start) }
    }
    return record
}

/// A press with contact bounce: down, then three quick bounces 2 ms apart, then held.
func bouncingPress(at t: Double, pressedIsUp: Bool) -> [PullStep] {
    let p = pressedIsUp
    return [PullStep(atSeconds: t, up: p), PullStep(atSeconds: t + 0.002, up: !p), PullStep(atSeconds: t + 0.004, up: p),
            PullStep(atSeconds: t + 0.006, up: !p), PullStep(atSeconds: t + 0.008, up: p)]
}

func bouncingRelease(at t: Double, pressedIsUp: Bool) -> [PullStep] {
    let p = pressedIsUp
    return [PullStep(atSeconds: t, up: !p), PullStep(atSeconds: t + 0.002, up: p), PullStep(atSeconds: t + 0.004, up: !p)]
}

/// Buttons through `LinuxGPIOInput` (both edges, kernel timestamps) and `ButtonDebouncer`.
func runButtonChecks(_ run: HILRun, _ env: HILEnvironment) {
    let chip = env.gpioChipName

    run.check("button: clean press and release give one edge each, timed by the kernel at the pull write") {
        let input = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: .name("button-select")), activeLow: false, pull: .down)
        try expect(try !input.isActive(), "active before the press")
        try expectEqual(try input.drainEdges(), [], "edges before the press")
        var debouncer = ButtonDebouncer(role: .select)
        let record = try runScenario([PullStep(atSeconds: 0.01, up: true), PullStep(atSeconds: 0.2, up: false)],
                                     untilSeconds: 0.3, input: input, line: .selectButton, debouncer: &debouncer, env)
        try expectEqual(record.edges.map(\.becameActive), [true, false], "edges (became active?)")
        for (edge, write) in zip(record.edges, record.writes) {
            // The edge is stamped in the interrupt the pull write raises, so between the two
            // clock reads around the write (with slack for an emulated CPU).
            try expect(edge.timeSeconds >= write.before - 0.001 && edge.timeSeconds <= write.after + 0.02,
                       "edge at \(edge.timeSeconds), pull written \(write.before)...\(write.after)")
        }
    }
    run.check("button: bouncing press and release on an active-high line make exactly one short press") {
        let input = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: .name("button-select")), activeLow: false, pull: .down)
        var debouncer = ButtonDebouncer(role: .select)
        let record = try runScenario(bouncingPress(at: 0.01, pressedIsUp: true) + bouncingRelease(at: 0.2, pressedIsUp: true),
                                     untilSeconds: 0.35, input: input, line: .selectButton, debouncer: &debouncer,
                                     sampleLevelAt: 0.1, env)
        try expectEqual(record.events.map(\.event), [.shortPressed(.select)], "debounced events (edges \(describeEdges(record.edges)))")
        try expectEqual(record.levelsWhileHeld, [true], "isActive() while held")
        try expectMonotonic(record.edges)
        try expect(record.edges.count >= 2, "only \(record.edges.count) edges for 8 pull changes")
    }
    run.check("button: active-low line (pull-up, pressed pulls down) makes exactly one short press") {
        let input = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: .name("button-next")), activeLow: true, pull: .up)
        try expectEqual(try env.level(.nextButton), 1, "physical level released")
        try expect(try !input.isActive(), "active while released")
        var debouncer = ButtonDebouncer(role: .next)
        let record = try runScenario(bouncingPress(at: 0.01, pressedIsUp: false) + bouncingRelease(at: 0.2, pressedIsUp: false),
                                     untilSeconds: 0.35, input: input, line: .nextButton, debouncer: &debouncer,
                                     sampleLevelAt: 0.1, env)
        try expectEqual(record.events.map(\.event), [.shortPressed(.next)], "debounced events (edges \(describeEdges(record.edges)))")
        try expectEqual(record.levelsWhileHeld, [true], "isActive() while held (line low)")
        try expectEqual(record.edges.first?.becameActive, true, "first edge (the pull-down) became active")
        try expectEqual(record.edges.last?.becameActive, false, "last edge (the pull-up) became inactive")
        try expectMonotonic(record.edges)
    }
    run.check("button: active-low clean press and release give a became-active then a became-inactive edge") {
        let input = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: .name("button-next")), activeLow: true, pull: .up)
        var debouncer = ButtonDebouncer(role: .next)
        let record = try runScenario([PullStep(atSeconds: 0.01, up: false), PullStep(atSeconds: 0.15, up: true)],
                                     untilSeconds: 0.25, input: input, line: .nextButton, debouncer: &debouncer, env)
        try expectEqual(record.edges.map(\.becameActive), [true, false], "edges (became active?)")
        try expectEqual(record.events.map(\.event), [.shortPressed(.next)], "debounced events")
    }
    runHeldAndUnbiasedButtonChecks(run, env)
}

/// A long press, an input without bias, and an empty drain.
func runHeldAndUnbiasedButtonChecks(_ run: HILRun, _ env: HILEnvironment) {
    let chip = env.gpioChipName

    run.check("button: a 1 s hold is one long press, reported while still held") {
        let input = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: .offset(SimLine.backButton.rawValue)), activeLow: false, pull: .down)
        var debouncer = ButtonDebouncer(role: .back, longPressSeconds: 0.8)
        let record = try runScenario(bouncingPress(at: 0.01, pressedIsUp: true) + bouncingRelease(at: 1.01, pressedIsUp: true),
                                     untilSeconds: 1.2, input: input, line: .backButton, debouncer: &debouncer, env)
        try expectEqual(record.events.map(\.event), [.longPressed(.back)], "debounced events (edges \(describeEdges(record.edges)))")
        let reported = record.events[0].atSeconds
        try expect(reported >= 0.8 && reported < 1.0, "long press reported at \(reported) s, expected 0.8...1.0 s (before the release at 1.01 s)")
        try expectMonotonic(record.edges)
    }
    run.check("button: an input without bias (pull: .none) follows the outside pull") {
        let input = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: .offset(SimLine.backButton.rawValue)), activeLow: false, pull: .none)
        try expectEqual(input.lineName, "\(chip) line \(SimLine.backButton.rawValue)", "lineName")
        try env.pull(.backButton, up: true)
        try expect(try input.isActive(), "not active when pulled up")
        try env.pull(.backButton, up: false)
        try expect(try !input.isActive(), "active when pulled down")
        guard let fd = input.pollDescriptor else { throw CheckFailure("no poll descriptor") }
        _ = waitForReadable([fd], timeoutSeconds: 0.5)
        sleepSeconds(0.02)
        try expectEqual(try input.drainEdges().map(\.becameActive), [true, false], "edges")
    }
    run.check("button: drainEdges() with nothing waiting returns at once") {
        let input = try LinuxGPIOInput(address: GPIOLineAddress(chip: chip, line: .offset(SimLine.backButton.rawValue)), activeLow: false, pull: .down)
        let before = monotonicSeconds()
        let edges = try input.drainEdges()
        let took = monotonicSeconds() - before
        try expectEqual(edges, [], "edges")
        try expect(took < 0.05, "drainEdges() took \(took) s")
        guard let fd = input.pollDescriptor else { throw CheckFailure("no poll descriptor") }
        try expect(waitForReadable([fd], timeoutSeconds: 0).isEmpty, "descriptor readable with no edge waiting")
    }
}

func expectMonotonic(_ edges: [GPIOEdge]) throws {
    for (a, b) in zip(edges, edges.dropFirst()) where b.timeSeconds < a.timeSeconds {
        throw CheckFailure("edge timestamps go back: \(describeEdges(edges))")
    }
    if let first = edges.first {
        let now = monotonicSeconds()
        try expect(first.timeSeconds <= now && first.timeSeconds > now - 5, "edge time \(first.timeSeconds) is not on CLOCK_MONOTONIC (now \(now))")
    }
}

func describeEdges(_ edges: [GPIOEdge]) -> String {
    guard let t0 = edges.first?.timeSeconds else { return "none" }
    return edges.map { "\($0.becameActive ? "+" : "-")\(String(Int((($0.timeSeconds - t0) * 1000).rounded())))ms" }.joined(separator: " ")
}
