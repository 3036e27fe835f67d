import AmbleModel
import AmbleServer
import AmbleSync

extension FuzzTarget {
    /// Well-formed inputs for the corpus (`amble-fuzz --write-seeds DIR` writes them): libFuzzer
    /// mutates from them, so its inputs reach past the first checks.
    public var seeds: [[UInt8]] {
        switch self {
        case .frames:
            return [Framing.frame(.pair, Array(repeating: 7, count: 32)) + Framing.frame(.secure, Array(0 ..< 200).map { UInt8($0) }),
                    Refusal(code: .busy, message: "busy").frame]
        case .messages:
            return Self.exampleMessages.enumerated().map { $0.element.encoded(number: UInt32($0.offset)) }
        case .bandLink:
            return (try? Self.handshakeSeeds()) ?? []
        case .sessionData:
            return [SessionCoding.encode(Self.exampleSession(seconds: 30)), SessionCoding.encode(Self.exampleSession(seconds: 3, raw: true))]
        case .board:
            return [Array(Self.exampleBoard.utf8)]
        case .study:
            return [Array(Self.exampleStudy.utf8), Array(Self.exampleStudyJSON.utf8)]
        case .toml:
            return [Array(Self.exampleBoard.utf8), Array(Self.exampleStudy.utf8), Array(Self.exampleTOML.utf8)]
        case .stepsRecording:
            return [Array("time_s,x_g,y_g,z_g\n0.00,0.1,-0.2,0.98\n0.04,0.12,-0.21,0.97\n0.08,0.3,-0.1,1.2\n".utf8),
                    Array(Self.exampleWalk.utf8), Array("time_s,x_g,y_g,z_g\n0,1,0,0\n0.2,1.1,0,0\n0.4,0.9,0,0\n0.6,1,0,0\n".utf8)]
        case .ppgRecording:
            return [Array("time_s,ppg1,x_g,y_g,z_g\n0.00,120000,0.1,-0.2,0.98\n0.04,120013,0.12,-0.21,0.97\n".utf8),
                    Array("time_s,ppg1,ppg2,ppg3,x_g,y_g,z_g\n0.0,1,2,3,0,0,1\n0.1,1,2,3,0,0,1\n".utf8),
                    Array(Self.examplePulse.utf8)]
        case .labels:
            return [Array("file,true_steps,kind,duration_s\nwalk1.csv,312,walking,180.5\ndesk.csv,0,non-walking,600\n".utf8),
                    Array("time_s,bpm\n8,72.5\n10,73.1\n".utf8)]
        case .serverInput:
            return ServerInputs.seeds + [[3] + SessionCoding.encode(Self.exampleSession(seconds: 30))]
        }
    }

    /// A sine-like wave of period 1 (parabolic arcs), for seeds without a maths library.
    static func wave(_ cycles: Double) -> Double {
        let p = cycles - cycles.rounded(.down)
        return p < 0.5 ? 16 * p * (0.5 - p) : -16 * (p - 0.5) * (1 - p)
    }

    /// `seconds` of a recording at 25 Hz, a row each from `row(t)`, then one more 1e7 s after
    /// the last: a gap the analysis must pass over in one step.
    static func exampleWithGap(header: String, seconds: Int, row: (Double) -> String) -> String {
        var text = header + "\n"
        for i in 0..<(seconds * 25) { text += row(Double(i) / 25) + "\n" }
        return text + row(Double(seconds * 25 - 1) / 25 + 1e7) + "\n"
    }

    /// 14 s of walking at 108 steps/min, |a| alone, and 12 s of a 72 bpm pulse, still.
    static let exampleWalk = exampleWithGap(header: "time_s,x_g,y_g,z_g", seconds: 14) { "\($0),\(1 + 0.25 * wave(1.8 * $0)),0,0" }
    static let examplePulse = exampleWithGap(header: "time_s,ppg1,x_g,y_g,z_g", seconds: 12) { "\($0),\(1000 + 50 * wave(1.2 * $0)),0,0,1" }

    static let exampleMessages: [SyncMessage] = [
        .hello(lowestVersion: 3, highestVersion: 4, client: "amble"), .listSessions(afterID: 0),
        .getChunk(sessionID: 5, offset: 300, maximumLength: 12_288), .acknowledge(sessionID: 5), .getSettings,
        .setSetting(key: "metronome", value: "on"), .setClock(unixSeconds: 1_800_000_000), .deleteAll(.request), .getStatus,
        .getStorage, .pairingVerdict(accepted: true), .pairingStatus,
        .welcome(version: 4, bandID: "0d1f", bandName: "Band", bandUnixSeconds: 1_800_000_000),
        .sessionList([SyncMessage.SessionEntry(id: 3, summary: exampleSession(seconds: 5).summary, dataLength: 812, dataCRC32: 1, synced: false)], more: true),
        .chunk(sessionID: 5, offset: 300, totalLength: 304, bytes: [1, 2, 3, 4]), .acknowledged(sessionID: 5),
        .settings([SyncMessage.SettingValue(key: "metronome", value: "on")]), .clockSet(offsetSeconds: -2.5), .deleteAllState(.done),
        .status(recording: [SyncMessage.RecordingEntry(id: 6, kind: "mindful-walk", startUnixSeconds: 1_800_000_600, recordedSeconds: 300)]),
        .storage(.full, message: "the band's store is full"),
        .pairingReveal(nonce: Array(repeating: 1, count: 32), bandID: "0d1f", bandName: "Band"), .pairingState(.paired),
        .failure(code: .notFound, message: "no finished session 5 on this band"),
    ]

    static func exampleSession(seconds: Int, raw: Bool = false) -> SessionRecord {
        let parameters = SessionParameters(calibratedCadenceStepsPerMinute: 110, reductionPercent: 20, limitCadenceStepsPerMinute: 88, stepLengthMeters: 0.7)
        var tally = SessionTally()
        var rows: [SessionSecond] = []
        for i in 0 ..< seconds {
            let row = SessionSecond(offsetSeconds: i, steps: 1 + i % 2, cadenceStepsPerMinute: 85 + Double(i % 9),
                                    heartRateBPM: i % 7 == 0 ? nil : 90, heartRateConfidence: i % 7 == 0 ? nil : 0.8,
                                    overLimit: i % 9 > 3, alerts: i == 2 ? 1 : 0, paused: i == seconds - 1)
            rows.append(row)
            tally.add(row)
        }
        var record = SessionRecord(summary: tally.summary(kind: .mindfulWalk, startUnixSeconds: 1_800_000_000,
                                                          endUnixSeconds: 1_800_000_000 + Double(seconds), parameters: parameters), seconds: rows)
        if raw {
            record.raw = [RawBlock(sensor: .accelerometer, startMilliseconds: 4, rateMillihertz: 50_000, channels: 3, values: [12, -980, 150, 20, -985, 148])]
        }
        return record
    }

    /// A pairing's first message and a paired laptop's connecting message, each as one round
    /// of the band-link target (a control byte, then the frame).
    static func handshakeSeeds() throws -> [[UInt8]] {
        var xx = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: .fixedLaptopForFuzzing)
        var ik = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                         localStaticKey: .fixedLaptopForFuzzing, remoteStaticKey: NoiseKeyPair.fixedForFuzzing.publicKey)
        let pair = Framing.frame(.pair, try xx.writeMessage(payload: []).message)
        let connect = Framing.frame(.connect, try ik.writeMessage(payload: []).message)
        return [[0x3F] + pair, [0x3F] + connect + [0x7F] + Framing.frame(.secure, Array(repeating: 0, count: 40))]
    }

    /// Every kind of TOML value and table once, for the `toml` target.
    static let exampleTOML = #"""
        s = "Bänd \"one\"\t\u00E9" # comment
        l = 'C:\x'
        "q k" = 1
        d.e.f = true
        m = """
        a \
          b"""
        ml = '''x''y'''
        [n]
        i = [+99, -17, 0, 1_000, 0xDEAD_beef, 0o755, 0b1101]
        f = [3.14, -2E-2, 6.626e-34, -inf, nan]
        t = [1979-05-27T07:32:00Z, 1979-05-27 00:32:00.999-07:00, 1979-05-27T07:32:00, 2024-02-29, 00:32:00.5]
        mixed = ["a", 1, [true], { x = 1, y.z = 2 }, {}]
        [[b]]
        r = "next"
        [[b]]
        [b.extra]
        n = 1
        [[b.p]]
        k = "up"
        """#

    static let exampleBoard = """
        name = "Fuzz band"
        platform = "linux"

        [accelerometer]
        chip = "lis3dh"
        bus = 1
        address = 0x18

        [motor]
        chip = "gpiochip0"
        line = 17

        [[button]]
        role = "next"
        chip = "gpiochip0"
        line = "GPIO27"

        [[button]]
        role = "select"
        chip = "gpiochip0"
        line = 22
        """

    static let exampleStudy = """
        name = "Fuzz study"
        start = 2026-03-02
        end = 2026-03-15

        [[course]]
        title = "Join"
        when = "Day 1"
        questionnaire = "baseline"

        [[questionnaire]]
        name = "baseline"
        title = "Before the study"
        due = "start"

        [[questionnaire.item]]
        id = "mindful"
        type = "likert"
        text = "I walk mindfully"
        scale = [1, 5]
        labels = ["never", "always"]

        [[questionnaire.item]]
        id = "often"
        type = "single"
        text = "How often do you walk?"
        choices = ["daily", "weekly"]

        [[questionnaire]]
        name = "after"
        title = "After your walk"
        due = "after-walk"
        remind_at = "19:00"

        [[questionnaire.item]]
        id = "minutes"
        type = "number"
        text = "Minutes"
        min = 0
        max = 300
        """

    static let exampleStudyJSON = """
        {"name": "Fuzz study", "start": "2026-03-02", "end": "2026-03-15",
         "questionnaire": [{"name": "daily", "title": "Daily", "due": "daily",
           "item": [{"id": "how", "type": "text", "text": "How was it?", "max_length": 200},
                    {"id": "where", "type": "multiple", "text": "Where?", "choices": ["park", "street"]}]}]}
        """
}
