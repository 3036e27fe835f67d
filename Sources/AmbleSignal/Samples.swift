/// One accelerometer sample: monotonic time in seconds and acceleration in g.
/// A magnitude-only sensor gives |a| in `xG` and sets `isMagnitudeOnly`.
public struct AccelerationSample: Equatable, Sendable {
    public var timeSeconds: Double
    public var xG: Double
    public var yG: Double
    public var zG: Double
    public var isMagnitudeOnly: Bool

    public init(timeSeconds: Double, xG: Double, yG: Double, zG: Double, isMagnitudeOnly: Bool = false) {
        self.timeSeconds = timeSeconds
        self.xG = xG
        self.yG = yG
        self.zG = zG
        self.isMagnitudeOnly = isMagnitudeOnly
    }

    /// A row of a recording (CSV time_s,x_g,y_g,z_g), as `amble analyze steps` reads it:
    /// magnitude-only recordings hold |a| in x and 0 in y and z.
    public static func recorded(timeSeconds: Double, xG: Double, yG: Double, zG: Double) -> AccelerationSample {
        AccelerationSample(timeSeconds: timeSeconds, xG: xG, yG: yG, zG: zG, isMagnitudeOnly: yG == 0 && zG == 0)
    }

    /// |a| in g.
    public var magnitudeG: Double {
        isMagnitudeOnly ? abs(xG) : (xG * xG + yG * yG + zG * zG).squareRoot()
    }

    /// The same instant as a magnitude-only sensor would give it: |a| alone.
    public var magnitudeOnly: AccelerationSample {
        AccelerationSample(timeSeconds: timeSeconds, xG: magnitudeG, yG: 0, zG: 0, isMagnitudeOnly: true)
    }
}

/// One PPG sample: 1 to 3 optical channels in arbitrary units (any sign and DC offset), with
/// the acceleration at the same instant when there is one.
public struct PPGSample: Equatable, Sendable {
    public var timeSeconds: Double
    public var channels: [Double]
    public var acceleration: AccelerationSample?

    public init(timeSeconds: Double, channels: [Double], acceleration: AccelerationSample? = nil) {
        self.timeSeconds = timeSeconds
        self.channels = channels
        self.acceleration = acceleration
    }
}
