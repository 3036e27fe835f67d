@testable import AmbleCLI
import Testing

/// What becomes of an item after one try: acknowledged, kept for good, or tried again later.
struct OutboxPolicyTests {
    typealias Outcome = OutboxPolicy.Outcome

    func answer(_ status: Int, _ code: String? = nil, retryAfter: Double? = nil) -> OutboxPolicy.Answer {
        .response(status: status, errorCode: code, message: code.map { "\($0) said" }, retryAfterSeconds: retryAfter)
    }

    @Test func eachAnswerLeadsToItsState() {
        let backoff = OutboxPolicy.Backoff(baseSeconds: 2, capSeconds: 3600)
        let cut = TransportError.cut(server: "s", reason: "reset")
        let table: [(OutboxPolicy.Answer, Outcome)] = [
            (answer(201), .acknowledged),
            (answer(200), .acknowledged),
            (answer(409, "conflict"), .held(code: "conflict", message: "the server holds other bytes under this item's id (409): conflict said")),
            (answer(422, "outside_consent"), .held(code: "outside_consent", message: "the server refused it (422): outside_consent said")),
            (answer(413, "too_large"), .held(code: "too_large", message: "the server refused it as too large (413): too_large said")),
            (answer(401), .refreshToken),
            (answer(403, "forbidden"), .stop(message: "the server refused this laptop's token for this study (403): forbidden said")),
            (answer(500), .retry(atUnixSeconds: 100 + 2, error: "the server answered 500")),
            (answer(400, "bad_digest"), .retry(atUnixSeconds: 100 + 2, error: "the server answered 400: bad_digest said")),
            (answer(429, retryAfter: 60), .retry(atUnixSeconds: 100 + 60, error: "the server answered 429")),
            (.failed(cut), .retry(atUnixSeconds: 100 + 2, error: cut.description)),
        ]
        for (given, expected) in table {
            // random 1 with no attempts: the whole first step, 2 s.
            let outcome = OutboxPolicy.outcome(given, attempts: 0, nowUnixSeconds: 100, random: 1, backoff: backoff)
            #expect(outcome == expected, "\(given)")
        }
    }

    @Test func theBackoffDoublesWithJitterInItsUpperHalfAndIsCapped() {
        let backoff = OutboxPolicy.Backoff(baseSeconds: 2, capSeconds: 3600)
        for attempts in 0 ..< 40 {
            let step = min(3600, 2 * pow2(attempts))
            #expect(backoff.delay(attempts: attempts, random: 0) == step / 2)
            #expect(backoff.delay(attempts: attempts, random: 0.999_999) < step + 1e-6)
            #expect(backoff.delay(attempts: attempts, random: 0.5) == step * 0.75)
        }
        #expect(backoff.delay(attempts: 1000, random: 1) == 3600, "no overflow far out")
    }

    func pow2(_ n: Int) -> Double { Double(1 << min(n, 30)) }
}
