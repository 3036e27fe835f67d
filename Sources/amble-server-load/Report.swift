import Histogram
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A trial's results: printed as a table, written as JSON for scripts/load-server.
struct Report {
    var trial: String
    var target: String
    var seconds: Double
    var offeredRate: Double
    var connections: Int
    var participants: Int
    var state: Tally.State
    var processes: [(name: String, cpuSeconds: Double, peakBytes: Int)]
    var loadBefore: String
    var loadAfter: String
    var poolWalks: Int
    var poolMeanBytes: Int

    func milliseconds(_ histogram: Histogram<UInt64>, _ percentile: Double) -> Double {
        histogram.totalCount == 0 ? 0 : Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    var errorCount: Int { state.errors.values.reduce(0, +) }

    func print() {
        let latency = state.latency
        Swift.print("""
            trial \(trial) over \(target): \(participants) participants, \(connections) connections, offered \(offeredRate) a second, \(String(format: "%.1f", seconds)) s
              acknowledged: \(state.acknowledged) items (\(state.sessions) walks, \(state.answers) answer sheets): \(String(format: "%.1f", Double(state.sessions) / seconds)) walks a second
              requests: \(state.requests); statuses \(state.statuses.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
              cuts \(state.cuts), duplicates \(state.duplicates), retries \(state.retries); failures \(state.failures.isEmpty ? "none" : state.failures.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
              errors: \(errorCount)\(state.errors.isEmpty ? "" : " (" + state.errors.map { "\($0.key): \($0.value)" }.joined(separator: "; ") + ")")
              latency from the intended send (ms): p50 \(fmt(milliseconds(latency, 50))), p90 \(fmt(milliseconds(latency, 90))), p99 \(fmt(milliseconds(latency, 99))), p99.9 \(fmt(milliseconds(latency, 99.9))), max \(fmt(Double(latency.max) / 1000))
            """)
        if state.dashboard.totalCount > 0 {
            Swift.print("  dashboard loads: \(state.dashboard.totalCount), p50 \(fmt(milliseconds(state.dashboard, 50))) ms, p99 \(fmt(milliseconds(state.dashboard, 99))) ms, max \(fmt(Double(state.dashboard.max) / 1000)) ms")
        }
        for process in processes {
            Swift.print("  \(process.name): \(fmt(process.cpuSeconds)) CPU seconds (\(fmt(process.cpuSeconds / seconds * 100)) % of one core), peak memory \(process.peakBytes >> 20) MiB (PSS)")
        }
        Swift.print("  load average before \(loadBefore), after \(loadAfter)")
    }

    func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    struct Latency: Encodable { var p50, p90, p99, p999, max: Double; var count: Int }
    struct Usage: Encodable { var cpu_seconds: Double; var peak_bytes: Int }
    struct Written: Encodable {
        var trial, transport: String
        var seconds, offered_rate, sessions_per_second: Double
        var connections, participants, acknowledged, sessions, answers, requests, error_count, cuts, duplicates, retries: Int
        var statuses: [String: Int]
        var failures, errors: [String: Int]
        var latency_ms: Latency
        var dashboard_ms: Latency?
        var processes: [String: Usage]
        var load_before, load_after: String
        var pool_walks, pool_mean_bytes: Int
    }

    func latency(_ histogram: Histogram<UInt64>) -> Latency {
        Latency(p50: milliseconds(histogram, 50), p90: milliseconds(histogram, 90), p99: milliseconds(histogram, 99),
                p999: milliseconds(histogram, 99.9), max: Double(histogram.max) / 1000, count: Int(histogram.totalCount))
    }

    func json() throws -> Data {
        let written = Written(
            trial: trial, transport: target, seconds: seconds, offered_rate: offeredRate, sessions_per_second: Double(state.sessions) / seconds,
            connections: connections, participants: participants, acknowledged: state.acknowledged, sessions: state.sessions, answers: state.answers,
            requests: state.requests, error_count: errorCount, cuts: state.cuts, duplicates: state.duplicates, retries: state.retries,
            statuses: Dictionary(uniqueKeysWithValues: state.statuses.map { (String($0.key), $0.value) }),
            failures: state.failures, errors: state.errors, latency_ms: latency(state.latency),
            dashboard_ms: state.dashboard.totalCount > 0 ? latency(state.dashboard) : nil,
            processes: Dictionary(uniqueKeysWithValues: processes.map { ($0.name, Usage(cpu_seconds: $0.cpuSeconds, peak_bytes: $0.peakBytes)) }),
            load_before: loadBefore, load_after: loadAfter, pool_walks: poolWalks, pool_mean_bytes: poolMeanBytes)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return try encoder.encode(written)
    }
}
