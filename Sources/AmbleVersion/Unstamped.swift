#if AMBLE_FUZZ
/// The fuzzing build's stand-in for the version the AmbleVersion plugin stamps (see Package.swift).
public enum AmbleVersion {
    public static let string = "0.0.0 (fuzzing build)"
}
#endif
