import AmbleSignal

/// Files the steps the counter releases under the seconds they were taken in.
///
/// The counter releases steps about 10 s after they were taken (a walk's first ones up to
/// half a minute later, together; docs/steps.md, "Release"), and each release says when its
/// steps were taken (`StepRelease`). The band closes a second every second and remembers
/// when the last `secondsKept` closed; a released step goes to the second whose end it falls
/// before (steps spread evenly over their release's stretch), to the second still open when
/// it falls after the last one closed, and to the oldest second remembered when it falls
/// before them all.
///
/// Pure: releases and the seconds' band times in, counts out.
struct StepPlacement {
    /// Closed seconds remembered: more than the longest a step waits for its release (a walk's
    /// first steps, searched back up to 20 s and released up to 10 s after that).
    static let secondsKept = 64

    /// Band time at which each remembered second closed; `age: 0` is the newest.
    private var closedAt = RingBuffer<Double>(capacity: secondsKept, filling: 0)
    /// Steps placed since the last second closed: `[0]` in the second still open, `[n]` in the
    /// one that closed n seconds before it.
    private var placed = [Int](repeating: 0, count: secondsKept + 1)
    private var placedAny = false

    /// Files the steps of `releases`, each stretch's in its own seconds.
    mutating func add(_ releases: StepReleases) {
        for release in releases { add(release) }
    }

    /// Files the steps of `release`.
    mutating func add(_ release: StepRelease) {
        guard release.steps > 0 else { return }
        placedAny = true
        // Steps come in time order: walk back through the seconds from the newest once.
        var age = 0   // closedAt age of the newest second that closed at or after the step
        for index in stride(from: release.steps - 1, through: 0, by: -1) {
            let time = release.timeOfStep(index)
            if closedAt.count == 0 || time > closedAt[age: 0] {
                placed[0] += 1
                continue
            }
            while age + 1 < closedAt.count && time <= closedAt[age: age + 1] { age += 1 }
            placed[age + 1] += 1
        }
    }

    /// The band's clock went back: the seconds remembered closed at times that no longer come
    /// before the steps to come, so those go to the seconds that close from now on (the steps
    /// already placed stay where they are).
    mutating func forgetClosedSeconds() {
        closedAt.removeAll()
    }

    /// A second closed at band time `bandSeconds`: the steps placed since the last one, `[0]`
    /// in this second and `[n]` in the one n seconds before it (no trailing zeros).
    mutating func closeSecond(at bandSeconds: Double) -> [Int] {
        let result = takePlaced(shift: 0)
        closedAt.append(bandSeconds)
        return result
    }

    /// The steps placed since the last second closed, with those in the second still open
    /// counted in the last one closed: `[0]` in that second, `[n]` in the one n seconds before
    /// it (no trailing zeros). For a session's end, which comes between two seconds.
    mutating func takeIntoLastSecond() -> [Int] {
        placed[1] += placed[0]
        placed[0] = 0
        return takePlaced(shift: 1)
    }

    private mutating func takePlaced(shift: Int) -> [Int] {
        guard placedAny else { return [] }
        placedAny = false
        let last = placed.lastIndex { $0 != 0 } ?? -1
        let result = last < shift ? [] : Array(placed[shift ... last])
        for i in placed.indices { placed[i] = 0 }
        return result
    }
}
