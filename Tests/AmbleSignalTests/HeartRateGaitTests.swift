import AmbleRecordings
@testable import AmbleSignal
import AmbleSimulation
import RealModule
import Testing

/// The failure modes issue 15 found in the BAMI walking windows, on synthetic signals where
/// the truth is known (as the prototype's synth.py makes them): a pulse near the cadence and
/// its harmonics, a wrong lock to recover from, weak motion with a strong artefact, a quiet
/// arm. The old estimator was 24-100 bpm off in every one of them (it followed the stride).
@Suite("Heart rate against the gait")
struct HeartRateGaitTests {
    @Test("The scenarios are hard: the strongest PPG line is the gait's, not the pulse")
    func scenariosAreHard() {
        let scenario = GaitArtefactScenario(seconds: 60, heartRate: { _ in 118 }, cadence: { _ in 100 }, seed: 1)
        let rows = scenario.rows()
        let peak = strongestLineBPM(rows.suffix(400).map { $0.ppg[0] }, sampleRateHz: GaitArtefactScenario.rateHz)
        #expect(abs(peak - 50) < 3, "naive peak \(peak) bpm; the stride is at 50 /min")
    }

    @Test("A pulse between the step rate and its 1.5x, under a stride artefact 3x its size, 0.05 g of motion",
          arguments: [1, 2, 3] as [UInt64])
    func pulseNearTheCadence(seed: UInt64) {
        let scenario = GaitArtefactScenario(seconds: 180, heartRate: { _ in 118 }, cadence: { _ in 100 }, seed: seed)
        let score = scenario.score()
        #expect(score.meanAbsoluteErrorBPM <= 2, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }

    @Test("The heart rate climbs across the step rate (90 -> 130 bpm, steps at 110 /min)", arguments: [1, 2, 3] as [UInt64])
    func crossingTheStepRate(seed: UInt64) {
        let scenario = GaitArtefactScenario(seconds: 240, heartRate: { 90 + 40 * min(1, max(0, ($0 - 20) / 200)) },
                                            cadence: { _ in 110 }, seed: seed)
        let score = scenario.score()
        #expect(score.meanAbsoluteErrorBPM <= 3, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }

    @Test("A wrong lock to recover from: no pulse for 30 s (only the gait), then 125 bpm", arguments: [1, 2, 3] as [UInt64])
    func recoveryFromAWrongLock(seed: UInt64) {
        let scenario = GaitArtefactScenario(seconds: 150, heartRate: { _ in 125 }, cadence: { _ in 104 },
                                            pulseAmplitude: { $0 > 30 ? 1 : 0 }, seed: seed)
        let outputs = scenario.outputs()
        let right = outputs.filter { o in o.estimate.map { abs($0.bpm - 125) <= 5 } ?? false }
        let first = right.first?.timeSeconds ?? .infinity
        #expect(first <= 46, "first value within 5 bpm at \(first) s")
        let after = outputs.filter { $0.timeSeconds >= 50 }
        let score = scenario.score(range: 50...150)
        #expect(after.allSatisfy { o in o.estimate.map { abs($0.bpm - 125) <= 5 } ?? true }, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }

    @Test("Weak motion, strong artefact: rest, then walking with 0.03 g at the wrist (72 -> 105 bpm)", arguments: [1, 2, 3] as [UInt64])
    func weakMotionStrongArtefact(seed: UInt64) {
        let scenario = GaitArtefactScenario(seconds: 240, heartRate: { 72 + 33 * min(1, max(0, ($0 - 60) / 60)) },
                                            cadence: { $0 > 60 ? 96 : 0 }, accelerationG: 0.03, seed: seed)
        let score = scenario.score()
        #expect(score.meanAbsoluteErrorBPM <= 2, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }

    @Test("A quiet arm: the accelerometer sees only the step (0.03 g), the PPG the stride (112 bpm)", arguments: [1, 2, 3] as [UInt64])
    func quietArm(seed: UInt64) {
        let scenario = GaitArtefactScenario(seconds: 180, heartRate: { _ in 112 }, cadence: { _ in 100 }, accelerationG: 0.03,
                                            quietArm: true, seed: seed)
        let score = scenario.score()
        #expect(score.meanAbsoluteErrorBPM <= 2, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }

    @Test("A slow mindful walk: 60 steps/min, the stride at 30 /min, 84 bpm", arguments: [1, 2, 3] as [UInt64])
    func slowMindfulWalk(seed: UInt64) {
        let scenario = GaitArtefactScenario(seconds: 180, heartRate: { _ in 84 }, cadence: { _ in 60 }, seed: seed)
        let score = scenario.score()
        #expect(score.meanAbsoluteErrorBPM <= 2.5, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }

    @Test("A mindful walk at 40 steps/min (stride 20 /min, step 40): the comb finds the step below 50 /min, 70 bpm",
          arguments: [1, 2, 3] as [UInt64])
    func mindfulWalkAtFortySteps(seed: UInt64) {
        GaitArtefactScenario(seconds: 180, heartRate: { _ in 70 }, cadence: { _ in 40 }, seed: seed)
            .expectTracked(withinBPM: 2.5)
    }

    @Test("A mindful walk at 35-45 steps/min with the hands held still: the comb takes the stride from the step counter's cadence",
          arguments: [35.0, 40.0, 45.0])
    func combTakesASlowMindfulWalkFromTheStepCounter(cadence: Double) {
        let rate = 25.0, count = 200
        var walk = GaitComb(windowCount: count, fftSize: 512, rateHz: rate, parameters: .standard)
        var alone = walk
        var random = SeededRandom(seed: UInt64(cadence))
        for window in 0..<2 {
            // Walking, the hands held: a 3 mg bounce at each step in 2 mg of sensor noise, too
            // faint for |a| alone to read as walking; the step counter hears the landings.
            let magnitude = (0..<count).map { i -> Double in
                let t = Double(window * count + i) / rate, f = cadence / 60
                return 0.003 * (Double.sin(2 * .pi * f * t) + 0.3 * Double.sin(4 * .pi * f * t + 0.5)) + 0.002 * random.gaussian()
            }
            walk.measure(magnitude: magnitude, stepCadence: cadence)
            alone.measure(magnitude: magnitude, stepCadence: 0)
        }
        #expect(walk.isWalking && abs(walk.cadenceStepsPerMinute - cadence) < 1, "read \(walk.cadenceStepsPerMinute), weight \(walk.weight)")
        // The stride's 2nd harmonic, the step, is the lowest tooth in the rhythm band (30 /min up).
        #expect(walk.toothCount > 0 && walk.firstToothOrder == 2 && abs(walk.teeth[0] - cadence) < 1)
        #expect(!alone.isWalking, "without the counter: weight \(alone.weight)")
    }

    @Test("One cadence: the gait comb searches the step counter's range, 30-200 steps/min (WalkingCadence)")
    func theCombSearchesTheStepCountersCadences() {
        let comb = HeartRateEstimator.Parameters.standard, counter = StepCounter.Parameters.standard
        #expect(comb.slowestCadenceStepsPerMinute == counter.slowestCadenceStepsPerMinute)
        #expect(comb.fastestCadenceStepsPerMinute == counter.fastestCadenceStepsPerMinute)
        #expect(WalkingCadence.slowestStepsPerMinute...WalkingCadence.fastestStepsPerMinute == 30...200)
    }

    @Test("Known limit: a heart rate on a gait tooth from the start (150 bpm, three times the stride) is not measured while it stays there")
    func rateOnAToothFromTheStart() {
        let scenario = GaitArtefactScenario(seconds: 120, heartRate: { _ in 150 }, cadence: { _ in 100 }, seed: 1)
        let score = scenario.score()
        withKnownIssue("inside a gait zone a window says nothing either way: with the pulse and its harmonic on teeth, the track stays where the start puts it (docs/heart-rate.md, Limits)") {
            #expect(score.meanAbsoluteErrorBPM <= 5, "\(score)")
        }
    }
}

/// One 50 Hz PPG channel on a 30 000-count DC level with a slow wander; a pulse (fundamental
/// and a 40 % second harmonic, its rate wandering by about 1 %) under a gait artefact at the
/// stride (3 times the pulse), the step (1.5 times) and their harmonics; noise. The
/// acceleration has the same rhythm: the arm swings at the stride (unless `quietArm`), the
/// wrist bounces at each step, `accelerationG` in size, with 4 mg of sensor noise.
struct GaitArtefactScenario {
    static let rateHz = 50.0
    var seconds: Double
    var heartRate: (Double) -> Double
    var cadence: (Double) -> Double
    var pulseAmplitude: (Double) -> Double = { _ in 1 }
    var accelerationG = 0.05
    var quietArm = false
    var seed: UInt64

    func rows() -> [PPGRow] {
        var random = SeededRandom(seed: seed)
        var rows: [PPGRow] = []
        var pulsePhase = 0.0, stridePhase = 0.0, wander = 0.0
        let n = Int(seconds * Self.rateHz)
        for i in 0..<n {
            let t = Double(i) / Self.rateHz
            wander += random.gaussian()
            pulsePhase += 2 * .pi * heartRate(t) / 60 * (1 + 0.02 * wander / 300) / Self.rateHz
            let steps = cadence(t)
            stridePhase += 2 * .pi * steps / 120 / Self.rateHz
            let moving = steps > 0 ? 1.0 : 0.0
            let pulse = pulseAmplitude(t) * (Double.sin(pulsePhase) + 0.4 * Double.sin(2 * pulsePhase + 0.8))
            let s = stridePhase
            let artefact = moving * (3 * Double.sin(s) + 1.5 * Double.sin(2 * s + 0.3) + 0.5 * Double.sin(3 * s + 1.1) + 0.3 * Double.sin(4 * s + 2))
            let ppg = 30_000 + 200 * Double.sin(2 * .pi * t / 40) + 100 * (pulse + artefact) + 15 * random.gaussian()
            let g = accelerationG * moving
            let x = (quietArm ? 0 : g * Double.sin(s + 0.5)) + 0.004 * random.gaussian()
            let y = g * 0.8 * Double.sin(2 * s) + 0.004 * random.gaussian()
            let z = 1 + g * 0.6 * Double.sin(2 * s + 1) + 0.004 * random.gaussian()
            rows.append(PPGRow(timeSeconds: t, ppg: [ppg], acceleration: AccelerationRow(timeSeconds: t, xG: x, yG: y, zG: z)))
        }
        return rows
    }

    /// The true mean rate over the 8 s window ending at `time`.
    func truth(at time: Double) -> Double {
        let samples = Int(8 * Self.rateHz)
        var sum = 0.0
        for k in 0..<samples { sum += heartRate(time - 8 + Double(k) / Self.rateHz) }
        return sum / Double(samples)
    }

    func outputs(parameters: HeartRateEstimator.Parameters = .standard,
                 configure: (inout HeartRateEstimator.Configuration) -> Void = { _ in }) -> [HeartRateOutput] {
        streamHeartRate(rows(), parameters: parameters, configure: configure).outputs
    }

    func score(range: ClosedRange<Double> = 0...1e9) -> GaitScore {
        GaitScore(outputs().filter { range.contains($0.timeSeconds) }, truth: truth(at:))
    }

    /// The mean error at most `withinBPM` and a value in at least 95 % of the windows.
    func expectTracked(withinBPM: Double, parameters: HeartRateEstimator.Parameters = .standard) {
        let score = GaitScore(outputs(parameters: parameters), truth: truth(at:))
        #expect(score.meanAbsoluteErrorBPM <= withinBPM, "\(score)")
        #expect(score.coverage >= 0.95, "\(score)")
    }
}

struct GaitScore: CustomStringConvertible {
    var meanAbsoluteErrorBPM: Double
    var coverage: Double
    var count: Int

    init(_ outputs: [HeartRateOutput], truth: (Double) -> Double) {
        let errors = outputs.compactMap { o in o.estimate.map { abs($0.bpm - truth(o.timeSeconds)) } }
        count = outputs.count
        coverage = outputs.isEmpty ? 0 : Double(errors.count) / Double(outputs.count)
        meanAbsoluteErrorBPM = errors.isEmpty ? .infinity : errors.reduce(0, +) / Double(errors.count)
    }

    var description: String {
        "MAE \((meanAbsoluteErrorBPM * 100).rounded() / 100) bpm, coverage \((coverage * 1000).rounded() / 10) % of \(count)"
    }
}

