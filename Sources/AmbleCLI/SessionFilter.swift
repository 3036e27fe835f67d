import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A moment or a day given on the command line (`--since`, `--until`): `YYYY-MM-DD` is that
/// whole local day; `YYYY-MM-DDTHH:MM[:SS]` is local time unless it ends in `Z` or `±HH:MM`.
struct TimeBound: Equatable {
    /// The first moment it covers, seconds since 1970-01-01T00:00:00Z.
    var firstUnixSeconds: Double
    /// The first moment after it (the next day's midnight for a day).
    var afterUnixSeconds: Double

    init(_ text: String, time: LocalTime = .system) throws {
        let (datePart, timePart) = text.firstIndex(where: { $0 == "T" || $0 == "t" || $0 == " " }).map {
            (String(text[..<$0]), String(text[text.index(after: $0)...]))
        } ?? (text, nil)
        let bad = CommandError("\"\(text)\" is not a date: give YYYY-MM-DD (a local day) or YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]")
        guard datePart.count == 10, let day = CivilDay(parsing: datePart) else { throw bad }
        guard var clock = timePart else {
            firstUnixSeconds = time.startOfDay(day)
            afterUnixSeconds = time.startOfDay(day.adding(days: 1))
            return
        }
        // The moment's zone: UTC (Z), a fixed offset (±HH:MM), or local.
        var offsetSeconds: Int?
        if clock.hasSuffix("Z") || clock.hasSuffix("z") {
            offsetSeconds = 0
            clock.removeLast()
        } else if let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let parts = clock[clock.index(after: sign)...].split(separator: ":", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ $0.count == 2 }), let hours = Int(parts[0]), hours < 24,
                  let minutes = parts.count == 2 ? Int(parts[1]) : 0, minutes < 60 else { throw bad }
            offsetSeconds = (clock[sign] == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
            clock = String(clock[..<sign])
        }
        let parts = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]), let minute = Int(parts[1]),
              let second = parts.count == 3 ? Int(parts[2]) : 0, hour < 24, minute < 60, second < 60 else { throw bad }
        // The wall-clock reading as if it were UTC, then moved by the zone's offset (looked up
        // twice for a local time, as `LocalTime.startOfDay` does).
        let wall = Double(day.daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second)
        if let offsetSeconds {
            firstUnixSeconds = wall - Double(offsetSeconds)
        } else {
            firstUnixSeconds = wall - Double(time.offsetSeconds(wall - Double(time.offsetSeconds(wall))))
        }
        afterUnixSeconds = firstUnixSeconds + 1
    }
}

/// Which sessions `sessions list` shows: started within the bounds, of a kind, from a band.
struct SessionFilter {
    var since: TimeBound?
    var until: TimeBound?
    var kind: SessionKind?
    /// A band's name (any case), or the start of its id (any length; the whole id included).
    var band: String?

    func includes(_ session: CompanionSession) -> Bool {
        let start = session.summary.startUnixSeconds
        if let since, start < since.firstUnixSeconds { return false }
        if let until, start >= until.afterUnixSeconds { return false }
        if let kind, session.summary.kind != kind { return false }
        if let band, !Self.band(band, id: session.bandID, name: session.bandName) { return false }
        return true
    }

    /// The sessions still being recorded it keeps (by their start, kind and band; never an error).
    func apply(_ recordings: [BandRecording]) -> [BandRecording] {
        recordings.filter { r in
            if let since, r.startUnixSeconds < since.firstUnixSeconds { return false }
            if let until, r.startUnixSeconds >= until.afterUnixSeconds { return false }
            if let kind, r.kind != kind.rawValue { return false }
            if let band, !Self.band(band, id: r.bandID, name: r.bandName) { return false }
            return true
        }
    }

    /// The sessions it keeps, in order. Throws when `band` names no band that has sessions
    /// here, listing those that do, or is the start of several bands' ids.
    func apply(_ sessions: [CompanionSession]) throws -> [CompanionSession] {
        if let band {
            var names: [String: String] = [:]
            for session in sessions { names[session.bandID] = session.bandName }
            func listed(_ ids: [String]) -> String { ids.sorted().map { "\(printableText(names[$0]!, maximum: 32)) (id \($0.prefix(8)))" }.joined(separator: ", ") }
            let matching = names.keys.filter { Self.band(band, id: $0, name: names[$0]!) }
            if matching.isEmpty {
                throw CommandError("no band \"\(printableText(band))\" has sessions here" + (names.isEmpty ? "" : "; bands with sessions: " + listed(Array(names.keys))))
            }
            let byName = matching.filter { names[$0]!.lowercased() == band.lowercased() }
            if byName.isEmpty && matching.count > 1 && !matching.contains(band) {
                throw CommandError("several bands' ids start with \"\(printableText(band))\": \(listed(matching)); give more of the id")
            }
        }
        return sessions.filter(includes)
    }

    private static func band(_ text: String, id: String, name: String) -> Bool {
        PairedBand.isNamed(text, id: id, name: name)
    }
}
