extension StepCounter {
    /// What the band knows of the wearer's activity that the wrist's signal cannot tell
    /// (docs/steps.md, "Context"). It adds no parameter: it replaces what the context-free
    /// counter has to assume.
    public enum Context: Sendable, Equatable {
        /// The wearer started a mindful walk on purpose, and is expected to walk at about
        /// `expectedStepsPerMinute` (the band passes the walk's limit: a mindful walk is asked
        /// to stay at or below it).
        ///
        /// - **Step or stride:** the expected cadence replaces the typical walker's
        ///   (`typicalCadenceStepsPerMinute`, 105) as the prior that breaks a tie between
        ///   reading a period as one step or as two. A mindful walk at 40 steps/min is an
        ///   octave below the typical cadence: there the prior called every step a stride.
        case mindfulWalk(expectedStepsPerMinute: Double)

        /// The cadence the wearer is expected to walk at, steps per minute.
        public var expectedStepsPerMinute: Double {
            switch self {
            case .mindfulWalk(let expected): expected
            }
        }
    }
}
