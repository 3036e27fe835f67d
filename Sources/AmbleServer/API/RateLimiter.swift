import Synchronization

/// A token bucket per participant: `burst` requests at once, `perSecond` more each second. In
/// this process's memory, so each server process limits on its own (a participant behind a
/// load balancer of N processes gets up to N times the rate); a shared limit belongs in the
/// next issue's design. Time comes from the caller (`now`, seconds), so tests drive it.
final class RateLimiter: Sendable {
    struct Bucket { var tokens: Double; var at: Double }
    let burst: Double
    let perSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Buckets kept at most; past it, the full ones are forgotten (a full bucket is a new one).
    static let maximumBuckets = 100_000

    init(burst: Double, perSecond: Double) {
        self.burst = burst
        self.perSecond = perSecond
    }

    /// nil when the request may go ahead (and takes a token), else the seconds to wait.
    func take(_ key: String, now: Double) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, at: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.at) * perSecond)
            bucket.at = now
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return Int(((1 - bucket.tokens) / perSecond).rounded(.up))
            }
            bucket.tokens -= 1
            if buckets.count >= Self.maximumBuckets {
                buckets = buckets.filter { $0.value.tokens + (now - $0.value.at) * perSecond < burst }
            }
            buckets[key] = bucket
            return nil
        }
    }
}
