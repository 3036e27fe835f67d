import RealModule

/// Wrist motion that is not walking, added to a still wearer's reading (gravity in the
/// band's frame plus sensor noise): the non-walking segments of `SyntheticActivities`, and the
/// large arm movements added to a walking wearer's reading in `walkingWithArmMovements`.
///
/// Each segment is a list of events (a gesture, a key tap, a scrubbing burst, a road bump, a
/// rail-joint click) drawn at its start from a seeded random source, then summed at each
/// query time. Directions are random in the band's frame, so the motion does not favour an
/// orientation. Amplitudes and rates are typical of wrist recordings of these activities.
struct NonWalkingMotion {
    private enum Shape {
        /// Out-and-back arm movement: a full sine cycle of acceleration over the event, and
        /// the wrist turning by `turnRadians` and back.
        case gesture(turnRadians: Double, axis: Vector)
        /// A short tap: a Gaussian pulse of width `widthSeconds`.
        case tap(widthSeconds: Double)
        /// An oscillation at `frequencyHz` under a raised-cosine envelope.
        case burst(frequencyHz: Double)
        /// A damped oscillation at `frequencyHz` with damping ratio `damping`.
        case ring(frequencyHz: Double, damping: Double)
        /// A slow push (cornering, braking): raised cosine over the event.
        case push
    }

    private struct Event {
        var start: Double
        var duration: Double
        var direction: Vector
        var amplitudeG: Double
        var shape: Shape
    }

    private var random: SeededRandom
    private var events: [Event] = []
    private var cursor = 0
    /// Continuous components of the current segment.
    private var swayAmplitudeG = 0.0
    private var swayFrequencyHz = 0.0
    private var swayDirection = Vector(x: 1, y: 0, z: 0)
    private var vibrationG = 0.0
    private var vibrationHz = 0.0
    private var noiseG = 0.0
    /// A steady tilt of the wrist during the segment (hands in a sink, on a wheel).
    private var tiltRadians = 0.0
    private var tiltAxis = Vector(x: 0, y: 1, z: 0)

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
    }

    mutating func start(_ segment: SyntheticActivities.Segment, at t0: Double) {
        events.removeAll(keepingCapacity: true)
        cursor = 0
        swayAmplitudeG = 0
        vibrationG = 0
        noiseG = 0
        tiltRadians = 0
        let end = t0 + segment.seconds
        switch segment {
        case .still, .walking, .walkingWithArmSettle:
            break
        case .walkingWithArmMovements:
            var t = t0 + uniform(1, 4)
            while t < end {
                let duration = uniform(0.3, 0.6)
                appendGesture(at: t, duration: duration, amplitudeG: 1 ... 2.5, turnRadians: 0.3 ... 1.0)
                t += duration + uniform(2, 5)
            }
        case .armGestures:
            var t = t0 + uniform(0.3, 2)
            while t < end {
                let duration = uniform(0.4, 1.5)
                appendGesture(at: t, duration: duration, amplitudeG: 0.2 ... 0.9, turnRadians: 0.2 ... 1.0)
                t += duration + uniform(0.6, 4)
            }
        case .typing:
            startTyping(from: t0, to: end)
        case .washingUp:
            startWashingUp(from: t0, to: end)
        case .driving:
            startDriving(from: t0, to: end)
        case .deskWork:
            startDeskWork(from: t0, to: end)
        case .train:
            startTrain(from: t0, to: end)
        }
    }

    /// A steady tilt of the wrist for the segment, by an angle drawn from `radians` (radians)
    /// about a random axis.
    private mutating func tiltWrist(_ radians: ClosedRange<Double>) {
        tiltRadians = uniform(radians.lowerBound, radians.upperBound)
        tiltAxis = randomDirection()
    }

    /// Typing: a tilted wrist, taps in words of 3-8 with pauses, now and then a reach.
    private mutating func startTyping(from t0: Double, to end: Double) {
        tiltWrist(0.2 ... 0.6)
        noiseG = 0.004
        var t = t0 + uniform(0, 0.3)
        while t < end {
            // Words of 3-8 taps, then a pause.
            let taps = Int(uniform(3, 9))
            for _ in 0 ..< taps where t < end {
                events.append(Event(start: t, duration: 0.12, direction: wobble(Vector(x: 0, y: 0, z: 1), 0.4), amplitudeG: uniform(0.02, 0.08), shape: .tap(widthSeconds: 0.015)))
                t += uniform(0.1, 0.25)
            }
            t += uniform(0.2, 1.2)
            if uniform(0, 1) < 0.15 {  // reach for the mouse or a key far away
                let duration = uniform(0.3, 0.8)
                appendGesture(at: t, duration: duration, amplitudeG: 0.05 ... 0.2, turnRadians: 0.05 ... 0.3)
                t += duration
            }
        }
    }

    /// Washing up: a tilted wrist, bursts of scrubbing at 3-5 Hz between reaches.
    private mutating func startWashingUp(from t0: Double, to end: Double) {
        tiltWrist(0.5 ... 0.9)
        noiseG = 0.01
        var t = t0 + uniform(0, 0.5)
        while t < end {
            let duration = uniform(1.5, 5)
            events.append(Event(start: t, duration: duration, direction: randomDirection(), amplitudeG: uniform(0.15, 0.5), shape: .burst(frequencyHz: uniform(3, 5))))
            t += duration + uniform(0.2, 1)
            let reach = uniform(0.5, 1.2)
            appendGesture(at: t, duration: reach, amplitudeG: 0.2 ... 0.6, turnRadians: 0.3 ... 0.9)
            t += reach + uniform(0.3, 2)
        }
    }

    /// Driving: a tilted wrist on the wheel, the engine's vibration, the car's bounces and the arm's pushes.
    private mutating func startDriving(from t0: Double, to end: Double) {
        tiltWrist(0.3 ... 0.8)
        vibrationG = uniform(0.005, 0.02)
        vibrationHz = uniform(25, 45)
        noiseG = 0.006
        let bounceHz = uniform(1.0, 1.5)
        var t = t0 + uniform(0, 1)
        while t < end {
            events.append(Event(start: t, duration: 3, direction: wobble(Vector(x: 0, y: 0, z: 1), 0.5), amplitudeG: uniform(0.02, 0.12),
                                shape: .ring(frequencyHz: bounceHz * uniform(0.9, 1.1), damping: 0.25)))
            t += uniform(0.2, 1.5)
        }
        t = t0 + uniform(1, 6)
        while t < end {
            let duration = uniform(2, 8)
            events.append(Event(start: t, duration: duration, direction: randomDirection(), amplitudeG: uniform(0.05, 0.3), shape: .push))
            t += duration + uniform(2, 15)
        }
    }

    /// Desk work: a tilted wrist, irregular taps (mostly 0.4-2.5 s apart), now and then a reach.
    private mutating func startDeskWork(from t0: Double, to end: Double) {
        tiltWrist(0.2 ... 0.6)
        noiseG = 0.004
        var t = t0 + uniform(0, 0.5)
        while t < end {
            events.append(Event(start: t, duration: 0.25, direction: wobble(Vector(x: 0, y: 0, z: 1), 0.5), amplitudeG: uniform(0.1, 0.45),
                                shape: .tap(widthSeconds: 0.035)))
            // Irregular: mostly 0.4-2.5 s apart, sometimes a quick run, sometimes a pause.
            let r = uniform(0, 1)
            t += r < 0.2 ? uniform(0.15, 0.4) : (r < 0.85 ? uniform(0.4, 2.5) : uniform(2.5, 6))
            if uniform(0, 1) < 0.1 {  // reach for a pen, the phone, the mouse
                let duration = uniform(0.5, 1.2)
                appendGesture(at: t, duration: duration, amplitudeG: 0.1 ... 0.4, turnRadians: 0.1 ... 0.5)
                t += duration
            }
        }
        events.sort { $0.start < $1.start }
    }

    /// A train: a tilted wrist, the coach's sway and vibration, the rail joints under each axle.
    private mutating func startTrain(from t0: Double, to end: Double) {
        tiltWrist(0.2 ... 0.6)
        swayAmplitudeG = uniform(0.01, 0.04)
        swayFrequencyHz = uniform(0.5, 1.0)
        swayDirection = randomDirection()
        vibrationG = uniform(0.005, 0.015)
        vibrationHz = uniform(15, 30)
        noiseG = 0.008
        let speed = uniform(15, 30)               // m/s
        let jointSpacing = 25.0                   // m, jointed rail
        let axleSpacing = 2.5, bogieSpacing = 17.5 // m, one coach
        var t = t0 + uniform(0, 1)
        while t < end {
            for offset in [0, axleSpacing, bogieSpacing, bogieSpacing + axleSpacing] {
                events.append(Event(start: t + offset / speed, duration: 0.15, direction: wobble(Vector(x: 0, y: 0, z: 1), 0.3),
                                    amplitudeG: uniform(0.03, 0.1), shape: .tap(widthSeconds: 0.02)))
            }
            t += jointSpacing / speed
        }
        events.sort { $0.start < $1.start }
    }

    /// The wrist's reading at `t`: the still reading turned and moved by this segment's motion.
    mutating func acceleration(at t: Double, still: (x: Double, y: Double, z: Double)) -> (x: Double, y: Double, z: Double) {
        var gravity = Vector(x: still.x, y: still.y, z: still.z)
        if tiltRadians != 0 { gravity = gravity.rotated(about: tiltAxis, by: tiltRadians) }
        var extra = Vector(x: 0, y: 0, z: 0)
        while cursor < events.count, events[cursor].start + events[cursor].duration + 3 < t { cursor += 1 }
        var i = cursor
        while i < events.count, events[i].start <= t {
            let e = events[i]
            i += 1
            let u = (t - e.start) / e.duration
            guard u >= 0, u < 1 else { continue }
            let local = t - e.start
            switch e.shape {
            case .gesture(let turn, let axis):
                gravity = gravity.rotated(about: axis, by: turn * Double.sin(.pi * u))
                extra = extra + e.direction * (e.amplitudeG * Double.sin(2 * .pi * u))
            case .tap(let width):
                let z = (local - 3 * width) / width
                extra = extra + e.direction * (e.amplitudeG * Double.exp(-0.5 * z * z))
            case .burst(let frequency):
                let envelope = 0.5 - 0.5 * Double.cos(2 * .pi * u)
                extra = extra + e.direction * (e.amplitudeG * envelope * Double.sin(2 * .pi * frequency * local))
            case .ring(let frequency, let damping):
                let w = 2 * .pi * frequency
                extra = extra + e.direction * (e.amplitudeG * Double.exp(-damping * w * local) * Double.sin(w * (1 - damping * damping).squareRoot() * local))
            case .push:
                extra = extra + e.direction * (e.amplitudeG * (0.5 - 0.5 * Double.cos(2 * .pi * u)))
            }
        }
        if swayAmplitudeG > 0 { extra = extra + swayDirection * (swayAmplitudeG * Double.sin(2 * .pi * swayFrequencyHz * t)) }
        if vibrationG > 0 { extra = extra + Vector(x: 0.3, y: 0.3, z: 0.9) * (vibrationG * Double.sin(2 * .pi * vibrationHz * t)) }
        if noiseG > 0 {
            extra = extra + Vector(x: random.gaussian(standardDeviation: noiseG), y: random.gaussian(standardDeviation: noiseG), z: random.gaussian(standardDeviation: noiseG))
        }
        let a = gravity + extra
        return (a.x, a.y, a.z)
    }

    /// An arm movement from `t`: a random direction, size and turn of the wrist (drawn in this
    /// order, so every recording stays what its seed made it).
    private mutating func appendGesture(at t: Double, duration: Double, amplitudeG: ClosedRange<Double>,
                                        turnRadians: ClosedRange<Double>) {
        let direction = randomDirection()
        let amplitude = uniform(amplitudeG.lowerBound, amplitudeG.upperBound)
        let turn = uniform(turnRadians.lowerBound, turnRadians.upperBound)
        let axis = randomDirection()
        events.append(Event(start: t, duration: duration, direction: direction, amplitudeG: amplitude,
                            shape: .gesture(turnRadians: turn, axis: axis)))
    }

    private mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * random.unit()
    }

    private mutating func randomDirection() -> Vector {
        Vector(x: random.gaussian(), y: random.gaussian(), z: random.gaussian()).normalized()
    }

    /// `base` tipped by up to `spread` (a fraction of its length) in a random direction.
    private mutating func wobble(_ base: Vector, _ spread: Double) -> Vector {
        (base + randomDirection() * spread).normalized()
    }
}

/// A 3-vector of doubles.
struct Vector {
    var x: Double, y: Double, z: Double

    static func + (a: Vector, b: Vector) -> Vector { Vector(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    static func * (a: Vector, s: Double) -> Vector { Vector(x: a.x * s, y: a.y * s, z: a.z * s) }

    var length: Double { (x * x + y * y + z * z).squareRoot() }

    func normalized() -> Vector {
        let l = length
        return l > 1e-12 ? self * (1 / l) : Vector(x: 0, y: 0, z: 1)
    }

    func dot(_ o: Vector) -> Double { x * o.x + y * o.y + z * o.z }
    func cross(_ o: Vector) -> Vector { Vector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x) }

    /// Rodrigues' rotation about the unit vector `axis` by `angle` radians.
    func rotated(about axis: Vector, by angle: Double) -> Vector {
        let c = Double.cos(angle), s = Double.sin(angle)
        return self * c + axis.cross(self) * s + axis * (axis.dot(self) * (1 - c))
    }
}
