import AmbleSignal

/// The practice's input each second is the signal pipeline's output, declared with the signal
/// processing (AmbleSignal); by this name the practice's files use it without importing that
/// target.
public typealias SecondReport = AmbleSignal.SecondReport
