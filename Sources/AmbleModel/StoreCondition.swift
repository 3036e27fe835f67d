/// How the band's store is, as the wearer and a laptop are told.
public enum StoreCondition: UInt8, Equatable, Sendable, CaseIterable {
    /// Nothing found wrong.
    case sound = 0
    /// It could not grow at its last write that needed room (its card is full, or it reached
    /// the board's `[storage] max_store_mb`): sessions wait for room, made by removing synced ones.
    case full = 1
    /// The check at start found it damaged: the band goes on with what it can read.
    case damaged = 2

    /// What the band shows the wearer (over its menu), nil when sound.
    public var warning: String? {
        switch self {
        case .sound: return nil
        case .full: return "Storage full"
        case .damaged: return "Storage damaged"
        }
    }

    /// As a laptop prints it.
    public var name: String {
        switch self {
        case .sound: return "sound"
        case .full: return "full"
        case .damaged: return "damaged"
        }
    }
}
