import AmbleBand
import AmbleBandStore
import AmbleHardware
import AmbleModel
import Testing

/// A calibration (`calibrationScript`), a rest longer than the counter's window (a walk that
/// resumes at its pace within one is the same walk, its gap walked), then a mindful walk at
/// 100 steps/min from the moment it begins.
let steadyWalkScript = calibrationScript + "+12 press select\n+1 press select\n+3 walk 100\n"

/// The band running `steadyWalkScript` up to `walkSeconds` seconds into the walk (just past
/// that second's end): the walk's start (band seconds) and the steps the wearer took since.
func walkUnderWay(_ run: ScenarioRun, walkSeconds: Int) throws -> (start: Double, stepsTaken: Int) {
    let wearer = try #require(run.band.simulation?.synthetic)
    var stepsAtStart = 0
    while try run.band.store.openSessions().first?.kind != SessionKind.mindfulWalk.rawValue {
        stepsAtStart = wearer.stepsTaken
        run.run(seconds: 0.01)
        try #require(run.clock.nowSeconds < 1200, "the walk never began")
    }
    let open = try #require(try run.band.store.openSessions().first)
    let start = open.startUnixSeconds - run.clock.unixOriginSeconds
    run.run(seconds: start + Double(walkSeconds) + 0.05 - run.clock.nowSeconds)
    return (start, wearer.stepsTaken - stepsAtStart)
}

struct PowerCutScenarioTests {
    /// A walk cut by a power cut keeps the steps of the seconds it stored: those rows, plus the
    /// steps the counter held (taken, not yet released) when the last of them was stored. It
    /// matches a walk ended cleanly at that second within a second's steps, and the wearer's
    /// truth within that and the counter's own error; its energy and distance too.
    @Test(arguments: [15, 40])
    func aPowerCutLosesAtMostTheSecondUnderWay(walkSeconds: Int) throws {
        let cut = try ScenarioRun(script: steadyWalkScript)
        let (_, taken) = try walkUnderWay(cut, walkSeconds: walkSeconds)
        // The power goes: nothing more is written. The store, opened again, closes the walk.
        let reopened = try BandStore(path: cut.directory + "/band/band.sqlite")
        #expect(reopened.recovery.walksClosed == 1)
        let recovered = try #require(try reopened.finishedSessions().last?.summary)
        let rows = try #require(try reopened.session(id: try reopened.finishedSessions().last!.id)).seconds
        #expect(rows.count == walkSeconds)
        #expect(rows.reduce(0) { $0 + $1.steps } == recovered.steps, "the steps the counter held are in the seconds they were taken in")

        let clean = try ScenarioRun(script: steadyWalkScript)
        _ = try walkUnderWay(clean, walkSeconds: walkSeconds)
        clean.band.shutDown()
        let ended = try #require(try clean.band.store.finishedSessions().last?.summary)

        let oneSecond = 100.0 / 60
        #expect(Double(abs(recovered.steps - ended.steps)) <= oneSecond, "cut at \(walkSeconds) s: \(recovered.steps) steps kept, \(ended.steps) when ended there")
        #expect(Double(abs(recovered.steps - taken)) <= oneSecond + 0.05 * Double(taken) + 2, "cut at \(walkSeconds) s: \(recovered.steps) kept of \(taken) taken")
        #expect(recovered.distanceMeters == Double(recovered.steps) * recovered.parameters.stepLengthMeters)
        let energy = try #require(recovered.activeKilocalories, "the energy so far is kept")
        #expect(abs(energy - (ended.activeKilocalories ?? 0)) < 1e-9)
    }
}
