import AmbleLinux

/// Ctrl-C (SIGINT) and SIGTERM while a command talks to a band, taken as a request to stop
/// cleanly instead of ending the process where it stands: the link's waits end
/// (`CompanionLink.isInterrupted`), what arrived is kept, the band hears a goodbye and the
/// person reads what was kept. Once the first is taken, a second ends the process at once;
/// the usual handling comes back when this is released.
final class StopSignals {
    private let watcher = SignalWatcher(signals: [SignalWatcher.interrupt, SignalWatcher.terminate])
    /// The first signal received.
    private(set) var received: Int32?

    /// Whether a signal has come (it is taken from the watcher once).
    var isStopRequested: Bool {
        if received == nil, let signal = watcher.takeSignal() {
            received = signal
            watcher.restoreDefaultActions()
        }
        return received != nil
    }

    /// Waits `seconds`, or less when a signal comes.
    func pause(_ seconds: Double) {
        guard !isStopRequested else { return }
        _ = waitForReadable([watcher.pollDescriptor], timeoutSeconds: seconds)
    }

    /// The signal as the person knows it.
    var name: String { received == SignalWatcher.terminate ? "SIGTERM" : "Ctrl-C" }

    /// What a shell expects of a process that stopped on this signal: 128 + its number
    /// (130 for Ctrl-C, 143 for SIGTERM).
    var exitCode: Int32 { 128 + (received ?? SignalWatcher.interrupt) }
}
