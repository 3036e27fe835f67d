import AmbleLinux

/// What the band's process gets from the machine it runs on: keys typed on the terminal
/// (simulated board), SIGTERM and SIGINT, a scenario script, and how fast simulated time runs.
struct BandHost {
    /// Single keys from the terminal; nil without one or with `--no-keyboard`.
    let keyboard: RawKeyboard?
    /// SIGTERM and SIGINT as a readable descriptor; nil in tests that build several bands.
    let signals: SignalWatcher?
    /// Band time runs this many times faster than real time on a paced (simulated) clock.
    let speed: Double
    /// The scenario script's steps still to come (none without `--script`).
    var script: ScenarioPlayer

    /// Descriptors that wake the loop: a key, a signal.
    var pollDescriptors: [Int32] {
        var descriptors: [Int32] = []
        if let keyboard { descriptors.append(keyboard.pollDescriptor) }
        if let signals { descriptors.append(signals.pollDescriptor) }
        return descriptors
    }
}
