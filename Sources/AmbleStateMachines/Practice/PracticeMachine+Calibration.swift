import AmbleModel

/// The calibration: the wearer walks at a normal pace, for a set time or over a known distance.
extension PracticeMachine {
    mutating func beginCalibration(unixSeconds: Double) -> [PracticeAction] {
        let parameters = SessionParameters(stepLengthMeters: stepLengthMeters)
        let run = CalibrationRun(settings: settings, lengthSeconds: values.calibrationSeconds)
        state = .calibrating(CalibrationSession(run: run, parameters: parameters, startUnixSeconds: unixSeconds))
        let total = settings.calibrationDistanceMeters == nil ? run.lengthSeconds : nil
        return [.beginSession(.calibration, startUnixSeconds: unixSeconds, parameters: parameters), .vibrate(.long),
                .show(.calibrating(elapsedSeconds: 0, totalSeconds: total, cadenceStepsPerMinute: 0, steps: 0))]
    }

    mutating func calibrationPressed(_ press: Press, _ session: CalibrationSession) -> [PracticeAction] {
        // Over a known distance the wearer marks its end with select.
        if press.isSelect, settings.calibrationDistanceMeters != nil {
            return finishCalibration(session)
        }
        guard press.goesBack else { return [] }
        state = .notice(secondsLeft: 5)
        return [.discardSession] + .refuse(showing: .notice(title: "Calibration discarded", detail: "Nothing was saved; your last calibration stays"))
    }

    mutating func calibrationSecond(_ session: CalibrationSession, _ report: SecondReport) -> [PracticeAction] {
        var session = session
        session.run.secondElapsed(steps: report.steps, cadenceStepsPerMinute: report.cadenceStepsPerMinute)
        let recorded = record(report, into: &session.tally, overLimit: false, alerts: 0, paused: false)
        session.rmssd = report.restingRMSSDMilliseconds ?? session.rmssd
        if session.run.isComplete {
            return recorded + finishCalibration(session)
        }
        state = .calibrating(session)
        let total = settings.calibrationDistanceMeters == nil ? session.run.lengthSeconds : nil
        return recorded + [.show(.calibrating(elapsedSeconds: session.run.elapsedSeconds, totalSeconds: total,
                                              cadenceStepsPerMinute: report.cadenceStepsPerMinute, steps: session.run.steps))]
    }

    /// Ends the calibration. Its end is its start plus the seconds it ran (counted, monotonic):
    /// never a second reading of the band's date, which a laptop or the system may have moved
    /// meanwhile.
    mutating func finishCalibration(_ session: CalibrationSession) -> [PracticeAction] {
        let unixSeconds = session.startUnixSeconds + Double(session.tally.seconds)
        var measured: Double?
        var actions: [PracticeAction] = []
        var then = MenuItem.calibrate
        var parameters = session.parameters
        switch session.run.outcome(unixSeconds: unixSeconds) {
        case .calibrated(let result):
            calibration = result
            measured = result.cadenceStepsPerMinute
            if let length = result.stepLengthMeters { parameters.stepLengthMeters = length }
            let speed = result.cadenceStepsPerMinute / 60 * parameters.stepLengthMeters * 3.6
            then = .mindfulWalk   // what a calibrated wearer does next
            let detail = "normal pace \(Int(result.cadenceStepsPerMinute.rounded())) steps/min, \(oneDecimal(speed)) km/h (step \(Int((parameters.stepLengthMeters * 100).rounded())) cm)"
            actions = [.saveCalibration(result)] + .confirm(showing: .notice(title: "Calibrated", detail: detail))
        case .failed(let reason):
            actions = .refuse(showing: .notice(title: "Calibration failed", detail: reason))
        }
        let summary = session.tally.summary(kind: .calibration, startUnixSeconds: session.startUnixSeconds, endUnixSeconds: unixSeconds,
                                            parameters: parameters, rmssdMilliseconds: session.rmssd, measuredCadenceStepsPerMinute: measured)
        state = .notice(secondsLeft: 8, then: then)
        return [.endSession(summary)] + actions
    }
}
