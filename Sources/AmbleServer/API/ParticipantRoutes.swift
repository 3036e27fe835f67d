#if canImport(FoundationEssentials)
import AmbleCompanion
import AmbleCompanionStore
import AmbleModel
import FoundationEssentials
#else
import Foundation
#endif
import AmbleStudyAPI
import Hummingbird
import PostgresNIO

/// The participant endpoints of API v1 (docs/server.md, "API").
struct ParticipantRoutes: Sendable {
    let server: StudyServer

    func register(on router: Router<BasicRequestContext>) {
        let v1 = router.group(RouterPath(StudyAPI.pathPrefix))
        v1.get("join/:code") { _, context in try await preview(code: context.parameters.require("code")) }
        v1.post("join") { request, _ in try await join(request) }
        v1.post("token") { request, _ in try await refresh(request) }
        v1.get("study") { request, _ in try await study(request) }
        v1.put("items/:kind/:item") { request, context in
            try await server.putItem(request, kind: context.parameters.require("kind"), itemID: context.parameters.require("item"))
        }
        v1.post("items") { request, _ in try await server.postItems(request) }
        v1.post("withdraw") { request, _ in try await withdraw(request) }
    }

    // MARK: Join

    struct CodeRow { var studyID: UUID; var hash: [UInt8] }

    /// The unused, unexpired code's study; nil for unknown, used and expired codes alike.
    func usableCode(_ typed: String, on connection: PostgresConnection, forUpdate: Bool) async throws -> CodeRow? {
        guard let code = Secrets.normalizedJoinCode(typed) else { return nil }
        let hash = Secrets.joinCodeHash(code)
        let lock: PostgresQuery = forUpdate
            ? "SELECT study_id FROM join_codes WHERE code_sha256 = \(ByteBuffer(bytes: hash)) AND used_at IS NULL AND expires_at > \(date(server.now)) FOR UPDATE"
            : "SELECT study_id FROM join_codes WHERE code_sha256 = \(ByteBuffer(bytes: hash)) AND used_at IS NULL AND expires_at > \(date(server.now))"
        for try await studyID in try await connection.query(lock, logger: server.logger).decode(UUID.self) {
            return CodeRow(studyID: studyID, hash: hash)
        }
        return nil
    }

    func preview(code: String) async throws -> Response {
        let preview: JoinPreview? = try await server.client.withConnection { connection in
            guard let row = try await usableCode(code, on: connection, forUpdate: false) else { return nil }
            let rows = try await connection.query("""
                SELECT name, consent_version, consent_sha256, consent_text, enrolment_closes FROM studies WHERE id = \(row.studyID)
                """, logger: server.logger)
            for try await (name, version, sha, text, closes) in rows.decode((String, String, String, String, Date?).self) {
                return JoinPreview(studyID: row.studyID.uuidString.lowercased(), studyName: name,
                                   consent: ConsentDocument(version: version, sha256: sha, text: text),
                                   enrolmentCloses: closes?.timeIntervalSince1970)
            }
            return nil
        }
        guard let preview else { throw ServerError.unknownCode }
        return try JSONBody.response(preview, status: .ok)
    }

    /// Enrols: the code is used up, the participant allocated and the consent recorded in one
    /// transaction; the arm's name stays on the server.
    func join(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(JoinRequest.self, from: request)
        let now = server.now
        guard (body.strata ?? [:]).allSatisfy({ $0.key.count <= 40 && $0.value.count <= 80 }) else {
            throw ServerError.badRequest("bad_strata", "A stratum's name is at most 40 characters and its value at most 80.")
        }
        let timeZone = body.timeZone ?? "UTC"
        guard LocalTime.zone(named: timeZone) != nil else {
            throw ServerError.badRequest("bad_time_zone", "time_zone \(printableText(timeZone, maximum: 64)) is neither an IANA time zone name (Europe/Berlin) nor an offset from UTC (+02:00); send one of those, or none for UTC.")
        }
        guard body.acceptedAt.isFinite, abs(body.acceptedAt - now) <= 86_400 else {
            throw ServerError.badRequest("bad_time", "accepted_at is more than a day away from the server's clock; set the laptop's clock and join again.")
        }
        let response = try await server.transaction { connection -> JoinResponse in
            guard let code = try await usableCode(body.code, on: connection, forUpdate: true) else { throw ServerError.unknownCode }
            let study = try await StudyRow.lock(code.studyID, on: connection, logger: server.logger)
            guard body.consentVersion == study.consentVersion, body.consentSHA256 == study.consentSHA256 else {
                throw ServerError(.conflict, "consent_changed", "The consent document accepted (version \(printableText(body.consentVersion))) is not the study's current one (version \(study.consentVersion)); show it again with GET /v1/join/CODE.")
            }
            if let opens = study.enrolmentOpens, now < opens {
                throw ServerError(.forbidden, "enrolment_closed", "Enrolment in this study has not opened yet; try again later.")
            }
            if let closes = study.enrolmentCloses, now >= closes {
                throw ServerError(.forbidden, "enrolment_closed", "Enrolment in this study has closed; ask the study team.")
            }
            let stratum = try Allocation.stratum(studyFile: study.fileText, values: body.strata ?? [:])
            var index = 0
            for try await count in try await connection.query(
                "SELECT count(*) FROM participants WHERE study_id = \(code.studyID) AND stratum = \(stratum)", logger: server.logger).decode(Int.self) {
                index = count
            }
            let armName = try Allocation.arm(studyFile: study.fileText, stratum: stratum, sequence: index)
            guard let arm = study.arms.first(where: { $0.name == armName }) else { throw StoreError.invalid("the study's arms and its file disagree") }
            let participant = UUID()
            try await connection.query("""
                INSERT INTO participants (id, study_id, arm_name, stratum, allocation_index, allocated_at,
                                          consent_version, consent_sha256, consent_accepted_at, joined_at, time_zone)
                VALUES (\(participant), \(code.studyID), \(arm.name), \(stratum), \(index), \(date(now)),
                        \(body.consentVersion), \(body.consentSHA256), \(date(body.acceptedAt)), \(date(now)), \(timeZone))
                """, logger: server.logger)
            try await connection.query("""
                UPDATE join_codes SET used_at = \(date(now)), participant_id = \(participant)
                WHERE code_sha256 = \(ByteBuffer(bytes: code.hash))
                """, logger: server.logger)
            let refresh = try await server.issueRefreshToken(participant: participant, family: UUID(), now: now, on: connection)
            return JoinResponse(participantID: participant.uuidString.lowercased(), studyID: code.studyID.uuidString.lowercased(),
                                studyFile: study.participantFileText, bandSettings: arm.bandSettings, refreshToken: refresh,
                                accessToken: try server.tokens.issue(participant: participant.uuidString, study: code.studyID.uuidString, now: Int(now)),
                                accessExpiresIn: AccessTokens.lifetimeSeconds)
        }
        return try JSONBody.response(response, status: .created)
    }

    // MARK: Tokens

    func refresh(_ request: Request) async throws -> Response {
        let body = try await JSONBody.decode(TokenRequest.self, from: request)
        let response = try await server.rotate(refreshToken: body.refreshToken)
        return try JSONBody.response(response, status: .ok)
    }

    // MARK: Study

    /// The study file, the arm's band settings and each questionnaire's due state: AmbleCompanion's
    /// `StudyRules` (the laptop's own) over the answers uploaded with their periods and the
    /// mindful walks uploaded, at the server's now in the participant's time zone.
    func study(_ request: Request) async throws -> Response {
        let participant = try await server.authenticate(request)
        let now = server.now
        let (study, zone, submissions, walks) = try await server.client.withConnection { connection in
            let study = try await StudyRow.load(participant.studyID, on: connection, logger: server.logger)
            var zone = "UTC"
            for try await name in try await connection.query(
                "SELECT time_zone FROM participants WHERE id = \(participant.id)", logger: server.logger).decode(String.self) { zone = name }
            var submissions: [StudySubmission] = []
            for try await (bytes, period) in try await connection.query("""
                SELECT bytes, period FROM items WHERE participant_id = \(participant.id) AND kind = 'answer' AND period IS NOT NULL ORDER BY item_time, seq
                """, logger: server.logger).decode((ByteBuffer, String).self) {
                guard let sheet = try? JSONDecoder().decode(AnswerItem.self, from: Data(bytes.readableBytesView)) else { continue }
                submissions.append(StudySubmission(questionnaire: sheet.questionnaire, period: period, submittedUnixSeconds: sheet.answeredAt, sessionID: nil))
            }
            var walks: [StudyWalk] = []
            for try await (seq, start) in try await connection.query("""
                SELECT i.seq, s.start_at FROM sessions s JOIN items i USING (participant_id, kind, item_id)
                WHERE s.participant_id = \(participant.id) AND s.session_kind = \(SessionKind.mindfulWalk.rawValue)
                """, logger: server.logger).decode((Int64, Date).self) {
                walks.append(StudyWalk(sessionID: seq, startUnixSeconds: start.timeIntervalSince1970))
            }
            return (study, zone, submissions, walks)
        }
        let settings = study.arms.first { $0.name == participant.armName }?.bandSettings ?? [:]
        let rules = try StudyFile.parse(text: study.participantFileText, file: "the stored study file")
        let time = LocalTime.zone(named: zone) ?? LocalTime.zone(named: "UTC")!
        let states = StudyRules.statuses(rules, now: now, time: time, submissions: submissions, walks: walks).map {
            QuestionnaireState(name: $0.questionnaire.name, state: participant.withdrawnAt != nil ? .over : Self.state($0.status))
        }
        return try JSONBody.response(StudyResponse(studyFile: study.participantFileText, bandSettings: settings, questionnaires: states), status: .ok)
    }

    /// The wire's four states: open but waiting for a walk is not open yet.
    static func state(_ status: QuestionnaireStatus) -> QuestionnaireState.State {
        switch status {
        case .due: .due
        case .completed: .completed
        case .upcoming, .waiting: .notOpen
        case .closed: .over
        }
    }

    // MARK: Withdrawal

    func withdraw(_ request: Request) async throws -> Response {
        let participant = try await server.authenticate(request)
        let body = try await JSONBody.decode(WithdrawRequest.self, from: request)
        let now = server.now
        let deleted = try await server.transaction { connection -> Bool in
            let study = try await StudyRow.load(participant.studyID, on: connection, logger: server.logger)
            let delete = body.deleteData ?? study.deleteOnWithdrawal
            try await connection.query("""
                UPDATE participants SET withdrawn_at = \(date(now)), tokens_revoked_at = \(date(now)),
                    data_deleted_at = CASE WHEN \(delete) THEN \(date(now)) END
                WHERE id = \(participant.id)
                """, logger: server.logger)
            try await connection.query(
                "UPDATE refresh_tokens SET revoked_at = \(date(now)) WHERE participant_id = \(participant.id) AND revoked_at IS NULL",
                logger: server.logger)
            if delete {
                // The keys' rows take the bodies and session summaries of every partition with them.
                try await connection.query("DELETE FROM item_keys WHERE participant_id = \(participant.id)", logger: server.logger)
                // The rollup remakes their days (now empty) and their arm's.
                try await connection.query("""
                    INSERT INTO rollup_dirty (participant_id, day) SELECT participant_id, day FROM participant_days
                    WHERE participant_id = \(participant.id) ON CONFLICT DO NOTHING
                    """, logger: server.logger)
                try await connection.query("DELETE FROM participant_days WHERE participant_id = \(participant.id)", logger: server.logger)
            }
            return delete
        }
        return try JSONBody.response(WithdrawResponse(withdrawnAt: now, dataDeleted: deleted), status: .ok)
    }
}
