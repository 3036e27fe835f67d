import AmbleHardware

/// `/dev/i2c-N`, opened on first use and reopened after failures, so that a bus that is
/// missing at start (I2C not enabled yet) or whose adapter went away (a USB I2C adapter
/// unplugged) is an error the band survives: the drivers' set-up fails with the message that
/// says how to enable I2C, and the band retries it.
public final class LazyLinuxI2CBus: I2CBus {
    public let busName: String
    private var bus: LinuxI2CBus?
    private var failuresInARow = 0
    /// After this many failed transfers in a row the device is closed and opened again.
    public let reopenAfterFailures = 5

    /// A bus at `path` (`/dev/i2c-1`); nothing is opened yet.
    public init(path: String) { busName = path }

    private func open() throws(I2CError) -> LinuxI2CBus {
        if let bus { return bus }
        let opened = try LinuxI2CBus(path: busName)
        bus = opened
        return opened
    }

    public func write(address: I2CAddress, bytes: [UInt8]) throws(I2CError) {
        do {
            try open().write(address: address, bytes: bytes)
            failuresInARow = 0
        } catch { reset(on: error); throw error }
    }

    public func writeThenRead(address: I2CAddress, bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8] {
        do {
            let read = try open().writeThenRead(address: address, bytes: bytes, readCount: readCount)
            failuresInARow = 0
            return read
        } catch { reset(on: error); throw error }
    }

    private func reset(on error: I2CError) {
        failuresInARow += 1
        if error.kind == .busMissing || error.kind == .permissionDenied || failuresInARow >= reopenAfterFailures {
            bus = nil
            failuresInARow = 0
        }
    }
}
