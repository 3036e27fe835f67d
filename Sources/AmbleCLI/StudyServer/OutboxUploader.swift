import AmbleCompanionStore

/// Sends the outbox to the study server: each waiting item by an idempotent PUT, oldest first;
/// an item leaves the outbox only once the server acknowledged it (`OutboxPolicy`).
struct OutboxUploader: Sendable {
    let store: CompanionStore
    let client: StudyServerClient
    var backoff = OutboxPolicy.Backoff()
    /// A number in 0..<1 for the backoff's jitter.
    var random: @Sendable () -> Double = { Double.random(in: 0 ..< 1) }

    /// What one pass or a drain did.
    struct Report: Equatable {
        var acknowledged = 0
        var failed = 0
        /// Items newly kept for good (409, 422, 413), with the server's reason.
        var held: [String] = []
        /// Why the pass stopped early (the server unreachable, a token refused), if it did.
        var stopped: String?
    }

    /// One pass over the items due at the clock's time (`everything`: every waiting item not
    /// held, backoff or not). Stops at once when the server cannot be reached: the other items
    /// would fail the same way.
    func pass(everything: Bool = false) -> Report {
        var report = Report()
        let items: [OutboxItem]
        do {
            items = try store.outboxItemsDue(nowUnixSeconds: everything ? .infinity : client.now())
        } catch {
            report.stopped = "the store could not be read: \(error)"
            return report
        }
        for item in items {
            let answer = client.put(item)
            let now = client.now()
            let outcome = OutboxPolicy.outcome(answer, attempts: item.attempts, nowUnixSeconds: now, random: random(), backoff: backoff)
            do {
                switch outcome {
                case .acknowledged:
                    try store.acknowledgeOutboxItem(item.itemID, nowUnixSeconds: now)
                    report.acknowledged += 1
                case let .held(code, message):
                    try store.recordOutboxFailure(item.itemID, error: message, nextAttemptUnixSeconds: now, held: code)
                    report.held.append("\(item.kind.rawValue) \(item.itemID): \(message)")
                case let .retry(at, error):
                    try store.recordOutboxFailure(item.itemID, error: error, nextAttemptUnixSeconds: at, held: nil)
                    report.failed += 1
                    if case .failed(let transport) = answer, transport.isUnreachable {
                        report.stopped = transport.description
                        return report
                    }
                case .refreshToken:
                    // `put` refreshed once already and was refused again.
                    try store.recordOutboxFailure(item.itemID, error: "the server refused a fresh access token (401)",
                                                  nextAttemptUnixSeconds: now + backoff.delay(attempts: item.attempts, random: random()), held: nil)
                    report.stopped = "the study server refuses this laptop's tokens (401); `amble study status` says what waits"
                    return report
                case let .stop(message):
                    try store.recordOutboxFailure(item.itemID, error: message, nextAttemptUnixSeconds: now, held: nil)
                    report.stopped = message
                    return report
                }
            } catch {
                report.stopped = "the store could not record the upload: \(error)"
                return report
            }
        }
        return report
    }

    /// Passes until every item is acknowledged or held, or `shouldGoOn` says stop (it is asked
    /// before each later pass, with the report so far and the seconds until the next item is
    /// due; it may wait that long). The first pass takes every item, backoff or not.
    func drain(shouldGoOn: (Report, Double) -> Bool) -> Report {
        var total = Report()
        var everything = true
        while true {
            let report = pass(everything: everything)
            everything = false
            total.acknowledged += report.acknowledged
            total.failed += report.failed
            total.held += report.held
            total.stopped = report.stopped
            guard let next = try? store.outboxItemsDue(nowUnixSeconds: .infinity).first else { return total }
            if case .some = report.stopped, report.acknowledged == 0 && report.failed == 0 { return total }
            guard shouldGoOn(total, max(0, next.nextAttemptUnixSeconds - client.now())) else { return total }
        }
    }
}
