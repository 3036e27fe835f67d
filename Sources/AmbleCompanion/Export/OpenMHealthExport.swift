import AmbleModel

/// Open mHealth export: one JSON array of data points (`{"header": ..., "body": ...}`), valid
/// against the official schemas (https://w3id.org/openmhealth/schemas/omh/):
///
/// - `omh:step-count:2.0`, the steps of each minute of each session (the last one shorter), so
///   the points of a session add up to its steps;
/// - `omh:heart-rate:2.0`, each second with a trustworthy heart rate, at the second's start;
///   `during exercise` while walking;
/// - `omh:physical-activity:1.2`, one per mindful walk: `walking`, its time, distance and
///   active energy (1.2 is the version with `kcal_burned`).
///
/// Data point ids are built from the band's id and its session id, so exporting again gives
/// the same ids (an importer can drop duplicates). `creation_date_time` is the end of the
/// session, when the band stored it.
enum OpenMHealthExport {
    static let fileName = "amble-openmhealth.json"

    /// Seconds a step-count point covers.
    static let stepIntervalSeconds = 60

    static func file(_ sessions: [ExportedSession]) -> ExportFile {
        let points = sessions.flatMap(dataPoints)
        let text = points.isEmpty ? "[]\n" : "[\n" + points.map { "  " + $0.text }.joined(separator: ",\n") + "\n]\n"
        let counts = Dictionary(grouping: points, by: \.schema).mapValues(\.count)
        let summary = [("step-count", "step-count"), ("heart-rate", "heart-rate"), ("physical-activity", "physical-activity")]
            .map { "\(counts[$0.0] ?? 0) \($0.1)" }.joined(separator: ", ") + " data points"
        return ExportFile(name: fileName, contents: text, summary: summary)
    }

    /// A data point as JSON text, and the name of its schema.
    struct DataPoint: Equatable {
        var schema: String
        var text: String
    }

    static func dataPoints(_ exported: ExportedSession) -> [DataPoint] {
        let session = exported.session
        let s = session.summary
        let idPrefix = "amble-\(session.bandID)-\(session.bandSessionID)"
        let created = isoDate(s.endUnixSeconds)
        let source = "Amble band \(session.bandName)"
        var points: [DataPoint] = []
        func point(_ schema: String, version: String, id: String, body: JSON) {
            let header = JSON.object([
                ("id", .string("\(idPrefix)-\(id)")),
                ("creation_date_time", .string(created)),
                ("schema_id", .object([("namespace", .string("omh")), ("name", .string(schema)), ("version", .string(version))])),
                ("acquisition_provenance", .object([("source_name", .string(source)), ("modality", .string("sensed"))])),
            ])
            points.append(DataPoint(schema: schema, text: JSON.object([("header", header), ("body", body)]).text))
        }

        // Steps per minute; a session without stored seconds gives its total over its time.
        if exported.seconds.isEmpty {
            point("step-count", version: "2.0", id: "steps", body: stepCount(s.steps, from: s.startUnixSeconds, to: s.endUnixSeconds))
        } else {
            var index = 0
            while index < exported.seconds.count {
                let slice = exported.seconds[index..<min(index + stepIntervalSeconds, exported.seconds.count)]
                let first = slice.first!, last = slice.last!
                let start = exported.unixSeconds(of: first)
                let end = exported.unixSeconds(of: last) + 1
                let steps = slice.reduce(0) { $0 + $1.steps }
                point("step-count", version: "2.0", id: "steps-\(first.offsetSeconds)", body: stepCount(steps, from: start, to: end))
                index += stepIntervalSeconds
            }
        }

        for second in exported.seconds {
            guard let bpm = second.heartRateBPM, bpm.isFinite else { continue }
            var body: [(String, JSON)] = [
                ("heart_rate", .object([("value", .number(bpm, digits: 1)), ("unit", .string("beats/min"))])),
                ("effective_time_frame", .object([("date_time", .string(isoDate(exported.unixSeconds(of: second))))])),
            ]
            if second.isWalking { body.append(("temporal_relationship_to_physical_activity", .string("during exercise"))) }
            point("heart-rate", version: "2.0", id: "hr-\(second.offsetSeconds)", body: .object(body))
        }

        if s.kind == .mindfulWalk {
            var body: [(String, JSON)] = [
                ("activity_name", .string("walking")),
                ("effective_time_frame", interval(from: s.startUnixSeconds, to: s.endUnixSeconds)),
                ("distance", .object([("value", .number(s.distanceMeters, digits: 1)), ("unit", .string("m"))])),
            ]
            if let kcal = s.activeKilocalories, kcal.isFinite {
                body.append(("kcal_burned", .object([("value", .number(kcal, digits: 1)), ("unit", .string("kcal"))])))
            }
            point("physical-activity", version: "1.2", id: "activity", body: .object(body))
        }
        return points
    }

    private static func stepCount(_ steps: Int, from start: Double, to end: Double) -> JSON {
        .object([("step_count", .integer(steps)), ("effective_time_frame", interval(from: start, to: end))])
    }

    private static func interval(from start: Double, to end: Double) -> JSON {
        .object([("time_interval", .object([("start_date_time", .string(isoDate(start))), ("end_date_time", .string(isoDate(end)))]))])
    }
}

/// A JSON value whose objects keep their keys in order, written compactly on one line.
indirect enum JSON: Equatable {
    case object([(String, JSON)])
    case string(String)
    case integer(Int)
    /// A number with at most `digits` decimals; non-finite becomes null.
    case number(Double, digits: Int)

    var text: String {
        switch self {
        case .object(let fields): "{" + fields.map { "\(SessionJSON.string($0.0)): \($0.1.text)" }.joined(separator: ", ") + "}"
        case .string(let value): SessionJSON.string(value)
        case .integer(let value): String(value)
        case .number(let value, let digits): SessionJSON.number(value, digits: digits)
        }
    }

    static func == (a: JSON, b: JSON) -> Bool { a.text == b.text }
}
