import AmbleModel

/// A mindful walk as the activity formats (TCX, FIT) hold it: laps between the wearer's
/// pauses, and a point per second walked (paused seconds have none, as with a watch's pause)
/// with the distance so far.
///
/// The steps of paused seconds count in the lap after them (the last lap also takes those
/// after it), so the laps add up to the walk's steps and distance. A point's distance is the
/// steps taken up to the end of its second times the step length: it follows the steps second
/// by second and the last point's is the walk's distance. Each lap's active energy is the
/// walk's shared by steps, in whole kilocalories adding up to the walk's rounded.
struct WalkActivity {
    /// A second walked, and the distance walked by its end, metres.
    struct Point {
        var second: SessionSecond
        var distanceMeters: Double
    }

    struct Lap {
        var points: [Point]
        var steps: Int
        /// Distance walked when the lap began (the end of the lap before), metres.
        var startDistanceMeters: Double
        var kilocalories = 0

        var endDistanceMeters: Double { points.last?.distanceMeters ?? startDistanceMeters }
        /// Seconds from the walk's start to the lap's first second, and the seconds it lasted.
        var startOffsetSeconds: Int { points.first?.second.offsetSeconds ?? 0 }
        var durationSeconds: Int { points.count }
        /// Mean and highest heart rate of its seconds with one, beats per minute.
        var heartRates: (average: Double, maximum: Double)? { Self.meanAndMaximum(points.compactMap(\.second.heartRateBPM)) }
        /// Mean and highest cadence of its seconds with one (walking), steps per minute.
        var cadences: (average: Double, maximum: Double)? { Self.meanAndMaximum(points.map(\.second.cadenceStepsPerMinute).filter { $0 > 0 }) }

        static func meanAndMaximum(_ values: [Double]) -> (average: Double, maximum: Double)? {
            let finite = values.filter(\.isFinite)
            guard let maximum = finite.max() else { return nil }
            return (finite.reduce(0, +) / Double(finite.count), maximum)
        }
    }

    /// The laps in time order; none when every second was paused.
    var laps: [Lap]

    init(_ walk: ExportedSession) {
        let stepLength = walk.summary.parameters.stepLengthMeters
        var laps: [Lap] = []
        var stepsSoFar = 0
        var pausedSteps = 0
        var current: Lap?
        for second in walk.seconds {
            if second.paused {
                if let lap = current { laps.append(lap); current = nil }
                pausedSteps += second.steps
                continue
            }
            if current == nil {
                current = Lap(points: [], steps: pausedSteps, startDistanceMeters: Double(stepsSoFar) * stepLength)
                stepsSoFar += pausedSteps
                pausedSteps = 0
            }
            stepsSoFar += second.steps
            current!.steps += second.steps
            current!.points.append(Point(second: second, distanceMeters: Double(stepsSoFar) * stepLength))
        }
        if let lap = current { laps.append(lap) }
        if pausedSteps > 0, !laps.isEmpty {
            // Paused at the end: those steps close the last lap.
            stepsSoFar += pausedSteps
            laps[laps.count - 1].steps += pausedSteps
            laps[laps.count - 1].points[laps[laps.count - 1].points.count - 1].distanceMeters = Double(stepsSoFar) * stepLength
        }
        let energy = max(0, Int((walk.summary.activeKilocalories ?? 0).rounded()))
        for (index, share) in apportion(energy, by: laps.map { Double($0.steps) }).enumerated() { laps[index].kilocalories = share }
        self.laps = laps
    }
}
