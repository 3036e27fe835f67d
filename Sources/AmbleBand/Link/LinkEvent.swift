import AmbleModel
import AmbleStateMachines

/// What the link asks the band to carry out, returned by each pass of the link
/// (`SyncService.service(now:band:)`) the way the practice machine returns actions: the link
/// has done its part (stored the setting, answered the laptop) and the band does the rest.
enum LinkEvent: Equatable {
    /// The wearer's part: a pairing to confirm, or one that ended or was settled; a wipe to confirm.
    case prompt(LinkPrompt.Request)
    /// A laptop set the band's date (checked by `LaptopDate`, and answered): from
    /// `movedBySeconds` before, to `toUnixSeconds`.
    case dateSet(movedBySeconds: Double, toUnixSeconds: Double)
    /// A laptop changed one of the wearer's settings; `value` as stored.
    case settingChanged(BandSetting, value: String)
    /// A laptop changed one of its own settings (`LaptopSetting`: its study's reminder); `value` as stored.
    case laptopSettingChanged(LaptopSetting, value: String)
}

/// What the band tells its link at each pass: its date, and whether its wearer is busy.
struct LinkBandState: Equatable {
    /// The band's date now, seconds since 1970 (the system clock and the offset a laptop set).
    var unixSeconds: Double
    /// Whether the wearer is in a countdown, calibration, walk or another prompt (a wipe is
    /// refused until they are back at the menu).
    var isWearerBusy: Bool
}
