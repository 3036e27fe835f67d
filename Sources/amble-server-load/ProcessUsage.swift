#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds and memory of a process and its descendants, read from /proc: the server and
/// PostgreSQL (its postmaster and every backend) during a trial.
struct ProcessUsage: Sendable {
    var name: String
    var pid: Int32

    /// user + system CPU seconds of the tree now, with the children it has already reaped.
    func cpuSeconds() -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var total = 0.0
        for pid in tree() {
            guard let fields = Self.statFields(pid) else { continue }
            // After the command's closing parenthesis: field 14 utime, 15 stime, 16 cutime, 17 cstime
            // (proc(5)); reaped children count for the root only (the tree's own are counted alive).
            total += (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
            if pid == self.pid { total += (Double(fields[13]) ?? 0) + (Double(fields[14]) ?? 0) }
        }
        return total / ticks
    }

    /// Proportional set size of the tree, bytes (shared pages divided among the processes that
    /// share them, so PostgreSQL's shared buffers count once).
    func memoryBytes() -> Int {
        tree().reduce(0) { sum, pid in
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return sum }
            let line = text.split(separator: "\n").first { $0.hasPrefix("Pss:") }
            let kilobytes = line?.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
            return sum + kilobytes * 1024
        }
    }

    /// The process and its descendants.
    func tree() -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [pid] }
        var parents: [Int32: Int32] = [:]
        for entry in entries {
            guard let child = Int32(entry), let fields = Self.statFields(child), let parent = Int32(fields[1]) else { continue }
            parents[child] = parent
        }
        var members: Set<Int32> = [pid]
        var grew = true
        while grew {
            grew = false
            for (child, parent) in parents where members.contains(parent) && !members.contains(child) {
                members.insert(child)
                grew = true
            }
        }
        return members.filter { parents[$0] != nil }.sorted()
    }

    /// The fields of /proc/PID/stat after the command: [0] is the state (field 3).
    static func statFields(_ pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }
}

/// Samples the processes' memory while a trial runs; CPU is read at its start and end.
final class UsageWatch: @unchecked Sendable {
    let processes: [ProcessUsage]
    private var startCPU: [Double]
    private(set) var peakBytes: [Int]
    private var task: Task<Void, Never>?

    init(_ processes: [ProcessUsage]) {
        self.processes = processes
        startCPU = processes.map { $0.cpuSeconds() }
        peakBytes = processes.map { _ in 0 }
        task = Task.detached { [self] in
            while !Task.isCancelled {
                for (index, process) in processes.enumerated() { peakBytes[index] = max(peakBytes[index], process.memoryBytes()) }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// Each process's CPU seconds since the watch began and its peak memory.
    func finish() async -> [(name: String, cpuSeconds: Double, peakBytes: Int)] {
        task?.cancel()
        await task?.value
        // A process that ended during the trial (killed in the crash trial) has no figures.
        return processes.enumerated().map { index, process in
            kill(process.pid, 0) == 0 ? (process.name, process.cpuSeconds() - startCPU[index], peakBytes[index]) : (process.name + " (ended)", 0, 0)
        }
    }
}
