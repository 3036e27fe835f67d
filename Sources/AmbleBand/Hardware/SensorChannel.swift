import AmbleDrivers
import Logging

/// A sensor as the band's loop sees it: reads that survive faults.
///
/// A failed transfer is retried at once. A sensor that keeps failing is reported once,
/// marked down, and re-initialised every `retrySeconds` until it answers again; one that
/// answers but delivers nothing for `stallSeconds` is re-initialised too (a wedged FIFO).
/// Every second in which data was lost is flagged so the session shows the gap.
final class SensorChannel<Batch> {
    enum Health: Equatable {
        case starting
        case healthy
        case down(sinceSeconds: Double)
        /// Switched off on purpose (the wearer withdrew consent): not read, no gaps.
        case off
    }

    let name: String
    private let configure: () throws(SensorError) -> Void
    private let read: () throws(SensorError) -> Batch
    private let shutDown: (() throws(SensorError) -> Void)?
    private let sampleCount: (Batch) -> Int
    private let lostData: (Batch) -> Bool
    private let logger: Logger
    let expectedRateHz: Double

    private(set) var health: Health = .starting
    private var failuresInARow = 0
    private var nextRetrySeconds = 0.0
    private var lastDataSeconds: Double?
    /// Data was lost since the flag was last taken.
    private var gap = false
    /// When a read last brought samples (band seconds): a sensor that answers but delivers
    /// nothing for a whole second (a stalled FIFO, before the stall is noticed and between
    /// re-initialisations) leaves that second without data, a gap like any other.
    private var lastSampleSeconds: Double?
    let retrySeconds = 2.0
    let failuresBeforeDown = 3
    let stallSeconds = 1.5

    init(name: String, expectedRateHz: Double, logger: Logger,
         configure: @escaping () throws(SensorError) -> Void,
         read: @escaping () throws(SensorError) -> Batch,
         shutDown: (() throws(SensorError) -> Void)? = nil,
         sampleCount: @escaping (Batch) -> Int,
         lostData: @escaping (Batch) -> Bool) {
        self.name = name
        self.expectedRateHz = expectedRateHz
        self.logger = logger
        self.configure = configure
        self.read = read
        self.shutDown = shutDown
        self.sampleCount = sampleCount
        self.lostData = lostData
    }

    var isHealthy: Bool { health == .healthy }
    var isOff: Bool { health == .off }

    /// Switches the sensor off (its low-power shutdown, when the chip has one) or back on.
    /// Off, it is neither read nor retried and its seconds are not gaps; on again, it is set
    /// up afresh at the next poll.
    func setEnabled(_ enabled: Bool) {
        if enabled {
            guard health == .off else { return }
            health = .starting
            nextRetrySeconds = 0
            gap = false
        } else {
            guard health != .off else { return }
            do { try shutDown?() } catch { logger.warning("\(name): cannot put it in shutdown: \(error)") }
            health = .off
            gap = false
            logger.notice("\(name) switched off")
        }
    }

    /// Reads what the sensor has, handling faults. Returns nil when nothing could be read.
    func poll(now: Double) -> Batch? {
        switch health {
        case .off:
            return nil
        case .starting, .down:
            guard now >= nextRetrySeconds else { gap = true; return nil }
            do {
                try configure()
                if case .down(let since) = health {
                    logger.notice("\(name) answers again after \(Int((now - since).rounded())) s; re-initialised")
                }
                health = .healthy
                failuresInARow = 0
                lastDataSeconds = now
                return nil
            } catch {
                if health == .starting {
                    logger.error("\(name) is not working; the band goes on without it and keeps trying. \(error)")
                    health = .down(sinceSeconds: now)
                }
                nextRetrySeconds = now + retrySeconds
                gap = true
                return nil
            }
        case .healthy:
            var lastError: SensorError?
            for _ in 0..<2 {  // one immediate retry of a failed transfer
                do {
                    let batch = try read()
                    failuresInARow = 0
                    if lostData(batch) { gap = true }
                    if sampleCount(batch) > 0 {
                        lastDataSeconds = now
                        lastSampleSeconds = now
                    } else if let last = lastDataSeconds, now - last > stallSeconds {
                        logger.warning("\(name) delivered no data for \(Int((now - last).rounded())) s; re-initialising")
                        markDown(now: now, retryAt: now)
                    }
                    return batch
                } catch {
                    lastError = error
                }
            }
            failuresInARow += 1
            gap = true
            if failuresInARow >= failuresBeforeDown, let lastError {
                logger.error("\(name) stopped answering; retrying every \(Int(retrySeconds)) s. \(lastError)")
                markDown(now: now, retryAt: now + retrySeconds)
            }
            return nil
        }
    }

    private func markDown(now: Double, retryAt: Double) {
        health = .down(sinceSeconds: now)
        nextRetrySeconds = retryAt
        gap = true
    }

    /// Whether the second ending at `secondEnd` (band seconds) lost data: data was lost since
    /// the last call, or the sensor is down, or no read brought samples within that second
    /// (every sensor the band reads samples faster than 1 Hz, and it is read several times a
    /// second). Clears the lost-data flag.
    func takeGap(secondEnd: Double) -> Bool {
        defer { gap = false }
        let noSamples = lastSampleSeconds.map { $0 < secondEnd - 1 } ?? true
        return health != .off && (gap || !isHealthy || noSamples)
    }
}
