import AmbleStateMachines
import Testing

struct ButtonDebouncerTests {
    /// Feeds edges then advances time in 5 ms ticks, like the band's loop, collecting events.
    func run(_ edges: [(Bool, Double)], until end: Double, debouncer: inout ButtonDebouncer) -> [(ButtonEvent, Double)] {
        var events: [(ButtonEvent, Double)] = []
        var pending = edges[...]
        var now = 0.0
        while now <= end {
            while let edge = pending.first, edge.1 <= now {
                events += debouncer.edge(becameActive: edge.0, atSeconds: edge.1).map { ($0, now) }
                pending = pending.dropFirst()
            }
            events += debouncer.update(now: now).map { ($0, now) }
            now += 0.005
        }
        return events
    }

    @Test func bouncingContactsMakeOneShortPress() {
        var debouncer = ButtonDebouncer(role: .select)
        let edges: [(Bool, Double)] = [(true, 1.000), (false, 1.001), (true, 1.002), (false, 1.0035), (true, 1.004),
                                       (false, 1.200), (true, 1.2012), (false, 1.2025)]
        let events = run(edges, until: 2, debouncer: &debouncer)
        #expect(events.map(\.0) == [.shortPressed(.select)])
    }

    @Test func holdingReportsALongPressWhileHeld() {
        var debouncer = ButtonDebouncer(role: .select, longPressSeconds: 0.8)
        let events = run([(true, 1.0), (false, 2.5)], until: 3, debouncer: &debouncer)
        #expect(events.map(\.0) == [.longPressed(.select)])
        let reportedAt = events[0].1
        #expect(reportedAt >= 1.8 && reportedAt < 1.81)
    }

    @Test func aGlitchShorterThanTheDebounceTimeIsIgnored() {
        var debouncer = ButtonDebouncer(role: .next, debounceSeconds: 0.02)
        let events = run([(true, 0.5), (false, 0.51)], until: 1, debouncer: &debouncer)
        #expect(events.isEmpty)
    }

    @Test func pressesJustUnderTheLongTimeAreShort() {
        var debouncer = ButtonDebouncer(role: .next, longPressSeconds: 0.8)
        let events = run([(true, 0.1), (false, 0.85), (true, 1.5), (false, 1.6)], until: 2, debouncer: &debouncer)
        #expect(events.map(\.0) == [.shortPressed(.next), .shortPressed(.next)])
    }
}
