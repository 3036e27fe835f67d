import AmbleLinux

/// What runs the band's loop: how band time passes, and what reaches the band from outside its
/// hardware. The board file chooses (`BandAssembly`): `RealTimeHost` on a real board,
/// `SimulatedHost` on the simulated one (pacing, the script, the keys). The band hands itself
/// to its host in `Band.run()` and never asks which one it has.
protocol BandHost: AnyObject {
    /// Runs `band`'s passes (`Band.tick()`) until it is asked to stop.
    func run(_ band: Band)
}

/// A real board: the loop runs on the system's clock and, between passes, sleeps until
/// something is due or a descriptor (a laptop's bytes, a button edge, a signal) is readable.
final class RealTimeHost: BandHost {
    func run(_ band: Band) {
        while !band.stopRequested {
            band.tick()
            _ = waitForReadable(band.pollDescriptors, timeoutSeconds: band.secondsUntilSomethingIsDue)
        }
    }
}
