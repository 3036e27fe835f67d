#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import AmbleCompanion
import AmbleModel
import PostgresNIO

/// The researcher's dashboard of one study (docs/server.md, "Dashboard"): per participant and
/// day, the walks synced, minutes walked mindfully, the share of that time within the pace
/// limit, surveys due and answered; per participant the last upload, the last band contact
/// and a flag after three days of silence; per arm and day the same summed. Everything is
/// computed by SQL over what the laptops uploaded; only the surveys due come from the study
/// file's due rules.
struct Dashboard: Sendable {
    /// Days without an upload after which a participant is flagged.
    static let silentDays = 3.0

    struct Participant: Sendable, Equatable {
        var id: UUID
        var arm: String
        var joinedAt: Double
        var withdrawnAt: Double?
        var lastUpload: Double?
        /// The end of the latest session the band recorded (the last time the band was worn
        /// and its data reached the laptop and then the server).
        var lastBandContact: Double?

        /// Days since anything arrived from this participant (since joining when nothing did);
        /// nil once withdrawn.
        func silentDays(now: Double) -> Double? {
            withdrawnAt == nil ? (now - (lastUpload ?? joinedAt)) / 86_400 : nil
        }
    }

    /// One participant's (or arm's) day.
    struct Day: Sendable, Equatable {
        var day: CivilDay
        var walks = 0
        var mindfulSeconds = 0.0
        var overLimitSeconds = 0.0
        var walkingSeconds = 0.0
        var answered = 0
        /// Sheets due this day by the study file's rules; nil when the study file has none.
        var due: Int?

        var withinLimitShare: Double? { walkingSeconds > 0 ? max(0, 1 - overLimitSeconds / walkingSeconds) : nil }

        mutating func add(_ other: Day) {
            walks += other.walks
            mindfulSeconds += other.mindfulSeconds
            overLimitSeconds += other.overLimitSeconds
            walkingSeconds += other.walkingSeconds
            answered += other.answered
            due = other.due.map { (due ?? 0) + $0 } ?? due
        }
    }

    var studyID: UUID
    var studyName: String
    var timeZone: String
    var days: [CivilDay]
    var participants: [Participant]
    /// Per participant, its days in the order of `days`.
    var participantDays: [UUID: [Day]]
    var now: Double
    /// Per arm, every participant of the study summed from the rollup (`participant_days`, UTC
    /// days, as of the rollup job's last run): read when the days are UTC. Nil otherwise, and
    /// the arms' rows then sum the participants of this page.
    var armTotals: [String: ArmTotal]?

    struct ArmTotal: Sendable, Equatable {
        var participants = 0
        var silent = 0
        var days: [Day]
    }

    /// Per arm (in the order of `arms`), its days summed over its participants.
    func armDays(arms: [String]) -> [(arm: String, participants: Int, silent: Int, days: [Day])] {
        if let armTotals {
            return arms.map { arm in
                let total = armTotals[arm] ?? ArmTotal(days: days.map { Day(day: $0, due: nil) })
                return (arm, total.participants, total.silent, total.days)
            }
        }
        return arms.map { arm in
            let members = participants.filter { $0.arm == arm }
            var days = self.days.map { Day(day: $0, due: nil) }
            for member in members {
                for (index, day) in (participantDays[member.id] ?? []).enumerated() { days[index].add(day) }
            }
            let silent = members.filter { ($0.silentDays(now: now) ?? 0) >= Self.silentDays }.count
            return (arm, members.count, silent, days)
        }
    }
}

/// How many questionnaire sheets a day of the study asks for, by the study file's due kinds:
/// the daily ones each day of the study, the start's on its first day, the end's on its last,
/// and the before- and after-walk ones once per mindful walk.
struct DueRule: Sendable {
    var firstDay: CivilDay
    var lastDay: CivilDay
    var daily = 0, start = 0, end = 0, perWalk = 0

    init(_ study: Study) {
        firstDay = study.firstDay
        lastDay = study.lastDay
        for questionnaire in study.questionnaires {
            switch questionnaire.due {
            case .daily: daily += 1
            case .start: start += 1
            case .end: end += 1
            case .beforeWalk, .afterWalk: perWalk += 1
            }
        }
    }

    func due(on day: CivilDay, walks: Int) -> Int {
        guard day >= firstDay, day <= lastDay else { return 0 }
        return daily + (day == firstDay ? start : 0) + (day == lastDay ? end : 0) + perWalk * walks
    }
}

extension StudyServer {
    /// The dashboard's figures for `days` days ending on `to` (default: today or the latest day
    /// with a session, whichever is later) in the time zone `timeZone`, for at most `limit`
    /// participants from `offset` in order of joining.
    func dashboard(study: StudyRow, timeZone: String, to: CivilDay?, days: Int, offset: Int, limit: Int) async throws -> Dashboard {
        try await client.withConnection { connection in
            // Time zone names are short ASCII (Europe/Berlin, Etc/GMT+2); others never reach the database.
            var known = false
            let plain = timeZone.utf8.count <= 64 && timeZone.utf8.allSatisfy { (0x21 ... 0x7e).contains($0) }
            if plain {
                for try await _ in try await connection.query(
                    "SELECT 1 FROM pg_timezone_names WHERE name = \(timeZone)", logger: logger).decode(Int.self) { known = true }
            }
            guard known else {
                throw ServerError.badRequest("unknown_time_zone", "tz=\(printableText(timeZone)) is not a time zone PostgreSQL knows; give one such as UTC or Europe/Berlin.")
            }
            var last = to
            if last == nil {
                for try await text in try await connection.query("""
                        SELECT to_char(greatest((\(date(now)) AT TIME ZONE \(timeZone))::date,
                                            coalesce((SELECT (se.start_at AT TIME ZONE \(timeZone))::date FROM sessions se
                                                      JOIN participants p ON p.id = se.participant_id WHERE p.study_id = \(study.id)
                                                      ORDER BY se.start_at DESC LIMIT 1), '-infinity')), 'YYYY-MM-DD')
                    """, logger: logger).decode(String.self) { last = CivilDay(parsing: text) }
            }
            let lastDay = last ?? CivilDay(daysSinceEpoch: Int((now / 86_400).rounded(.down)))
            let dayList = (0 ..< days).map { lastDay.adding(days: $0 - days + 1) }
            let (from, through) = (dayList[0].iso, lastDay.iso)

            var participants: [Dashboard.Participant] = []
            for try await (id, arm, joined, withdrawn, upload, band) in try await connection.query("""
                SELECT p.id, p.arm_name, p.joined_at, p.withdrawn_at, st.last_upload_at, st.last_band_contact_at
                FROM participants p LEFT JOIN participant_status st ON st.participant_id = p.id WHERE p.study_id = \(study.id)
                ORDER BY p.joined_at, p.id LIMIT \(limit) OFFSET \(offset)
                """, logger: logger).decode((UUID, String, Date, Date?, Date?, Date?).self) {
                participants.append(.init(id: id, arm: arm, joinedAt: joined.timeIntervalSince1970, withdrawnAt: withdrawn?.timeIntervalSince1970,
                                          lastUpload: upload?.timeIntervalSince1970, lastBandContact: band?.timeIntervalSince1970))
            }
            let ids = participants.map(\.id)
            let rule = (try? StudyFile.parse(text: study.fileText, file: "study.toml")).map(DueRule.init)
            var table: [UUID: [Dashboard.Day]] = [:]
            for id in ids { table[id] = dayList.map { Dashboard.Day(day: $0, due: rule?.due(on: $0, walks: 0)) } }
            // Walks and their minutes, per participant and local day.
            for try await (id, day, walks, mindful, over, walking) in try await connection.query("""
                SELECT se.participant_id, to_char((se.start_at AT TIME ZONE \(timeZone))::date, 'YYYY-MM-DD'),
                       count(*) FILTER (WHERE se.session_kind = 'mindful-walk'),
                       coalesce(sum(se.mindful_seconds), 0)::float8,
                       coalesce(sum(se.seconds_over_limit) FILTER (WHERE se.session_kind = 'mindful-walk'), 0)::float8,
                       coalesce(sum(coalesce(se.walking_seconds, se.duration_seconds)) FILTER (WHERE se.session_kind = 'mindful-walk'), 0)::float8
                FROM sessions se
                WHERE se.participant_id = ANY(\(ids))
                  AND se.start_at >= (\(from)::date::timestamp AT TIME ZONE \(timeZone))
                  AND se.start_at < ((\(through)::date + 1)::timestamp AT TIME ZONE \(timeZone))
                GROUP BY 1, 2
                """, logger: logger).decode((UUID, String, Int, Double, Double, Double).self) {
                guard let civil = CivilDay(parsing: day), let index = dayList.firstIndex(of: civil) else { continue }
                table[id]?[index].walks = walks
                table[id]?[index].mindfulSeconds = mindful
                table[id]?[index].overLimitSeconds = over
                table[id]?[index].walkingSeconds = walking
                table[id]?[index].due = rule?.due(on: civil, walks: walks)
            }
            // Answer sheets, per participant and local day of answering.
            for try await (id, day, count) in try await connection.query("""
                SELECT i.participant_id, to_char((i.item_time AT TIME ZONE \(timeZone))::date, 'YYYY-MM-DD'), count(*)
                FROM items i
                WHERE i.participant_id = ANY(\(ids)) AND i.kind = 'answer'
                  AND i.item_time >= (\(from)::date::timestamp AT TIME ZONE \(timeZone))
                  AND i.item_time < ((\(through)::date + 1)::timestamp AT TIME ZONE \(timeZone))
                GROUP BY 1, 2
                """, logger: logger).decode((UUID, String, Int).self) {
                guard let civil = CivilDay(parsing: day), let index = dayList.firstIndex(of: civil) else { continue }
                table[id]?[index].answered = count
            }
            let armTotals = ["UTC", "Etc/UTC"].contains(timeZone)
                ? try await armTotals(study: study.id, days: dayList, rule: rule, on: connection) : nil
            return Dashboard(studyID: study.id, studyName: study.name, timeZone: timeZone, days: dayList,
                             participants: participants, participantDays: table, now: now, armTotals: armTotals)
        }
    }

    /// The compliance query (docs/server-operations.md): per arm, its participants, the silent
    /// ones, and each UTC day of `days` from the rollup's `arm_days` (the whole study); the
    /// surveys due by the study file's rule for every participant of the arm.
    func armTotals(study: UUID, days: [CivilDay], rule: DueRule?, on connection: PostgresConnection) async throws -> [String: Dashboard.ArmTotal] {
        var totals: [String: Dashboard.ArmTotal] = [:]
        for try await (arm, members, silent) in try await connection.query("""
            SELECT p.arm_name, count(*)::int,
                   count(*) FILTER (WHERE p.withdrawn_at IS NULL
                                    AND coalesce(st.last_upload_at, p.joined_at) <= \(date(now - Dashboard.silentDays * 86_400)))::int
            FROM participants p LEFT JOIN participant_status st ON st.participant_id = p.id WHERE p.study_id = \(study) GROUP BY 1
            """, logger: logger).decode((String, Int, Int).self) {
            totals[arm] = .init(participants: members, silent: silent,
                                days: days.map { day in Dashboard.Day(day: day, due: rule.map { $0.due(on: day, walks: 0) * members }) })
        }
        for try await (arm, day, walks, mindful, over, walking, answered) in try await connection.query("""
            SELECT arm_name, to_char(day, 'YYYY-MM-DD'), walks, mindful_seconds, over_limit_seconds, walking_seconds, answers
            FROM arm_days WHERE study_id = \(study) AND day BETWEEN \(days[0].iso)::date AND \(days[days.count - 1].iso)::date
            """, logger: logger).decode((String, String, Int, Double, Double, Double, Int).self) {
            guard let civil = CivilDay(parsing: day), let index = days.firstIndex(of: civil), var total = totals[arm] else { continue }
            total.days[index].walks = walks
            total.days[index].mindfulSeconds = mindful
            total.days[index].overLimitSeconds = over
            total.days[index].walkingSeconds = walking
            total.days[index].answered = answered
            total.days[index].due = rule.map { $0.due(on: civil, walks: 0) * (total.participants - 1) + $0.due(on: civil, walks: walks) }
            totals[arm] = total
        }
        return totals
    }
}
