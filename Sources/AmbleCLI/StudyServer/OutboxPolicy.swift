/// What becomes of an outbox item after one try to upload it: the server's answer (or the
/// failure to get one) in, the item's next state out. Pure: the time and the jitter's random
/// number are arguments.
///
/// 200 and 201 acknowledge the item (it leaves the outbox). 409 (other bytes under its id) and
/// 422 (timed before consent or after withdrawal) and 413 (too large) are kept with the
/// server's reason and not tried again by themselves: trying cannot change them. 401 asks for
/// a new access token first; 403 (a token of another study) stops the upload. Anything else
/// (no answer, a cut, 5xx, 429, other 4xx) is tried again after a capped exponential backoff
/// with jitter, or after the server's `Retry-After` when that is longer.
enum OutboxPolicy {
    enum Outcome: Equatable {
        case acknowledged
        /// Kept, not tried again by itself: `code` is the server's error code.
        case held(code: String, message: String)
        /// Tried again at `atUnixSeconds`.
        case retry(atUnixSeconds: Double, error: String)
        /// The access token was refused: get a new one, then try again.
        case refreshToken
        /// Going on is pointless (a token of another study): stop the whole upload, loudly.
        case stop(message: String)
    }

    /// The wait before try number `attempts + 1`: `base · 2^attempts`, capped, of which the
    /// upper half is random ("equal jitter": laptops that failed together do not come back
    /// together, and the wait never drops below half its step).
    struct Backoff: Equatable, Sendable {
        var baseSeconds: Double = 2
        var capSeconds: Double = 3600

        /// `random` in 0..<1.
        func delay(attempts: Int, random: Double) -> Double {
            let step = min(capSeconds, baseSeconds * Double(1 << min(attempts, 30)))
            return step / 2 + step / 2 * min(max(random, 0), 1)
        }
    }

    /// The server's answer, or the transport's failure.
    enum Answer {
        case response(status: Int, errorCode: String?, message: String?, retryAfterSeconds: Double?)
        case failed(TransportError)
        /// No access token could be had: `permanent` when the server refuses this laptop's
        /// refresh token (or it has none), otherwise a failure worth trying again.
        case noToken(message: String, permanent: Bool)
    }

    static func outcome(_ answer: Answer, attempts: Int, nowUnixSeconds: Double, random: Double, backoff: Backoff = Backoff()) -> Outcome {
        let wait = backoff.delay(attempts: attempts, random: random)
        switch answer {
        case .failed(let error):
            return .retry(atUnixSeconds: nowUnixSeconds + wait, error: error.description)
        case let .noToken(message, permanent):
            return permanent ? .stop(message: message) : .retry(atUnixSeconds: nowUnixSeconds + wait, error: message)
        case let .response(status, code, message, retryAfter):
            let said = message.map { ": \($0)" } ?? ""
            switch status {
            case 200, 201:
                return .acknowledged
            case 409:
                return .held(code: code ?? "conflict", message: "the server holds other bytes under this item's id (409)\(said)")
            case 422:
                return .held(code: code ?? "outside_consent", message: "the server refused it (422)\(said)")
            case 413:
                return .held(code: code ?? "too_large", message: "the server refused it as too large (413)\(said)")
            case 401:
                return .refreshToken
            case 403:
                return .stop(message: "the server refused this laptop's token for this study (403)\(said)")
            default:
                let later = max(wait, retryAfter ?? 0)
                return .retry(atUnixSeconds: nowUnixSeconds + later, error: "the server answered \(status)\(said)")
            }
        }
    }
}
