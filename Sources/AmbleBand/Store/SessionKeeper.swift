import AmbleModel
import AmbleStateMachines
import Logging

/// The session under way between the signal pipeline and the store: when it began in band
/// time, its raw samples while the wearer consents (setting `consent_raw_capture`), and its end
/// with the steps the counter releases late (about 10 s after they were taken: they go to the
/// seconds they were taken in, and the summary as stored counts them). The band hands it the
/// practice's session actions; it is the one place that joins a session's samples, seconds and
/// summary.
struct SessionKeeper {
    let recorder: BandRecorder
    let logger: Logger
    /// Band time the session under way began (raw capture counts from it); nil between sessions.
    private(set) var startSeconds: Double?

    init(recorder: BandRecorder, logger: Logger) {
        self.recorder = recorder
        self.logger = logger
    }

    /// A session begins at band time `now`; its raw samples are kept when `rawCapture`.
    mutating func begin(_ kind: SessionKind, startUnixSeconds: Double, parameters: SessionParameters, now: Double, rawCapture: Bool,
                        signals: inout SignalPipeline) {
        signals.sessionBegan(kind, parameters: parameters)
        recorder.begin(kind: kind, startUnixSeconds: startUnixSeconds, parameters: parameters)
        startSeconds = now
        if rawCapture { startRawCapture(signals: &signals) }
    }

    /// The session ends with `summary` (the practice's): its last raw samples and the steps the
    /// counter still held are stored with it. Returns the summary as stored when it differs
    /// (late steps counted), for the practice to show; nil when the same or nothing was recorded.
    mutating func end(_ summary: SessionSummary, signals: inout SignalPipeline) -> SessionSummary? {
        startSeconds = nil
        if var capture = signals.rawCapture {
            signals.rawCapture = nil
            recorder.appendRaw(capture.finishAll())
        }
        guard recorder.isRecording else { return nil }
        let stored = recorder.end(summary, lateSteps: signals.finishSteps())
        return stored != summary ? stored : nil
    }

    /// The session is dropped: what was stored of it (raw samples too) goes with it.
    mutating func discard(signals: inout SignalPipeline) {
        startSeconds = nil
        signals.rawCapture = nil
        _ = signals.finishSteps()
        recorder.discard()
    }

    /// Starts raw capture for the session under way, if one is and none runs.
    func startRawCapture(signals: inout SignalPipeline) {
        guard let startSeconds, recorder.isRecording, signals.rawCapture == nil else { return }
        signals.rawCapture = RawSampleCapture(sessionStartSeconds: startSeconds)
        logger.info("raw capture on: the session's accelerometer\(signals.heartRateConsent ? " and PPG" : "") samples are kept")
    }

    /// Stores the raw blocks finished since the last second; says once when the cap is reached.
    func storeRawSamples(signals: inout SignalPipeline) {
        guard var capture = signals.rawCapture else { return }
        recorder.appendRaw(capture.takeFinishedBlocks())
        defer { signals.rawCapture = capture }
        if capture.capReached && !capture.capReported {
            capture.capReported = true
            logger.warning("raw capture reached its cap of \(capture.maximumBytes >> 20) MiB for this session after \(capture.samplesTaken[.accelerometer] ?? 0) accelerometer and \(capture.samplesTaken[.ppg] ?? 0) PPG samples; the session goes on without raw samples")
        }
    }
}
