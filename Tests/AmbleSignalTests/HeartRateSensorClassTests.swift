import AmbleSignal
import RealModule
import Testing

/// The display threshold per sensor class (docs/heart-rate.md, "Confidence"): the class is read
/// from what is known before the first sample, and each class gets the threshold the rule read
/// from its reliability tables.
@Suite("Heart-rate sensor classes and their display thresholds")
struct HeartRateSensorClassTests {
    /// Sample times at `rateHz`, each moved by up to ±5 % of an interval at random.
    static func times(rateHz: Double, count: Int = 256) -> [Double] {
        (0..<count).map { i in
            let hash = Double.sin(Double(i) * 12.9898) * 43758.5453
            return (Double(i) + 0.1 * (hash - hash.rounded(.down) - 0.5)) / rateHz
        }
    }

    /// A Bangle.js 2's delivery: 40.3 ms apart, every 9th interval 40 ms longer (mean 22.4 Hz,
    /// median 24.8 Hz).
    static let bursts: [Double] = (0..<256).reduce(into: [Double]()) { t, i in
        t.append(i == 0 ? 0 : t[i - 1] + 0.0403 + (i % 9 == 0 ? 0.04 : 0))
    }

    @Test("Bursts with pauses: the mean rate while sampling (22.4 Hz) decides, not the median interval's (24.8 Hz)")
    func burstsAreLowRate() {
        let sensor = HeartRateSensorClass(ppgChannels: 1, times: Self.bursts, acceleration: Self.rows(Self.bursts, .threeAxis))
        #expect(sensor.ppg == .oneChannelLowRate)
        #expect(HeartRateEstimator.Configuration(sensor: sensor).minimumConfidence == 0.8)
    }

    static func rows(_ times: [Double], _ kind: HeartRateSensorClass.Accelerometer) -> [AccelerationSample?] {
        times.map { t in
            switch kind {
            case .none: nil
            case .magnitudeOnly: AccelerationSample(timeSeconds: t, xG: 1.01, yG: 0, zG: 0)
            case .threeAxis: AccelerationSample(timeSeconds: t, xG: -0.07, yG: 0.31, zG: -0.96)
            }
        }
    }

    @Test("Channels, rate and accelerometer decide the class; the class decides the threshold",
          arguments: [
              // channels, Hz, accelerometer, class's PPG, display threshold
              (1, 22.0, HeartRateSensorClass.Accelerometer.threeAxis, HeartRateSensorClass.PPG.oneChannelLowRate, 0.8),
              (1, 20.0, .none, .oneChannelLowRate, 0.7),
              (1, 22.0, .magnitudeOnly, .oneChannelLowRate, 0.9),
              (1, 25.0, .threeAxis, .standard, 0.4),
              (2, 22.0, .threeAxis, .standard, 0.4),
              (2, 125.0, .magnitudeOnly, .standard, 0.45),
              (3, 50.0, .none, .standard, 0.8),
          ])
    func classAndThreshold(channels: Int, rateHz: Double, accelerometer: HeartRateSensorClass.Accelerometer,
                           ppg: HeartRateSensorClass.PPG, threshold: Double) {
        let t = Self.times(rateHz: rateHz)
        let sensor = HeartRateSensorClass(ppgChannels: channels, times: t, acceleration: Self.rows(t, accelerometer))
        #expect(sensor == HeartRateSensorClass(ppg: ppg, accelerometer: accelerometer))
        #expect(HeartRateEstimator.Configuration(sensor: sensor).minimumConfidence == threshold)
    }

    @Test("Every class has a threshold with its reason; only the classes without an accelerometer on 2+ channels fail the rule")
    func everyClassHasAThreshold() {
        for sensor in HeartRateSensorClass.allCases {
            let entry = HeartRateEstimator.Configuration.displayThresholds[sensor]
            #expect(entry != nil && !(entry?.reason.isEmpty ?? true), "\(sensor)")
            #expect(entry?.meetsRule == (sensor != HeartRateSensorClass(ppg: .standard, accelerometer: .none)), "\(sensor)")
        }
        #expect(HeartRateEstimator.Configuration(sensor: .standardThreeAxis).minimumConfidence == HeartRateEstimator.Configuration().minimumConfidence)
    }

    @Test("A gap or a few rows without acceleration do not change the class")
    func gapAndMissingRows() {
        var t = Self.times(rateHz: 22)
        for i in 100..<t.count { t[i] += 30 }   // a 30 s gap
        var rows = Self.rows(t, .threeAxis)
        rows[0] = nil; rows[1] = nil
        #expect(HeartRateSensorClass(ppgChannels: 1, times: t, acceleration: rows)
                == HeartRateSensorClass(ppg: .oneChannelLowRate, accelerometer: .threeAxis))
    }
}
