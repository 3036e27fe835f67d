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
        /// - **Start:** walking is presumed, and a slow rhythm is what is expected, not a car's
        ///   or a chair's: no stricter start below `clearRhythmBelowStepsPerMinute`, and the
        ///   presumption weighs as much as landings one step apart do (the start level is
        ///   lowered by the margin that unlanded rhythms pay). A weak rhythm's run must still
        ///   last as long as a clear start's (`secondsToConfirm`).
        /// - **Change of pace:** once the pace has moved beyond `periodTolerance`, the step-or-
        ///   stride votes gathered at the old pace are dropped: with the expected cadence as
        ///   prior they are sure, and a surge's votes held a walk at twice its pace after it.
        ///
        /// The band passes the walk's limit (`SignalPipeline`): the decision that matters is
        /// whether the walker is above it, and the prior's ties fall an octave's half either side
        /// (0.71 to 1.41 times the limit are preferred over their octaves; a slower mindful walk
        /// is left to the wrist's evidence). Expecting the limit over √2 instead read a walk at
        /// the limit at half its pace (the band's demo counted 228 of 253 steps).
        case mindfulWalk(expectedStepsPerMinute: Double)

        /// The cadence the wearer is expected to walk at, steps per minute.
        public var expectedStepsPerMinute: Double {
            switch self {
            case .mindfulWalk(let expected): expected
            }
        }
    }
}
