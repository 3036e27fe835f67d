/// A 7-bit I2C address (0x03...0x77).
public typealias I2CAddress = UInt8

/// An I2C bus master: the two calls every chip driver needs.
///
/// `write` sends one message; `writeThenRead` sends a write message followed by a read
/// message joined by a repeated start (one `I2C_RDWR` transfer on Linux), which is how a
/// register block is read. Drivers speak registers only through this protocol, so the same
/// driver runs on `/dev/i2c-N` and against an emulated chip.
public protocol I2CBus: AnyObject {
    /// What a person would call this bus in an error message, e.g. `/dev/i2c-1`.
    var busName: String { get }

    /// Writes `bytes` to the device at `address` in one message.
    func write(address: I2CAddress, bytes: [UInt8]) throws(I2CError)

    /// Writes `bytes` then reads `readCount` bytes with a repeated start in between.
    func writeThenRead(address: I2CAddress, bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8]
}

extension I2CBus {
    /// Reads one 8-bit register.
    public func readRegister(address: I2CAddress, register: UInt8) throws(I2CError) -> UInt8 {
        let bytes = try writeThenRead(address: address, bytes: [register], readCount: 1)
        guard let byte = bytes.first else {
            throw I2CError(bus: busName, address: address, register: register, kind: .shortTransfer(expected: 1, got: 0))
        }
        return byte
    }

    /// Reads `count` bytes starting at `register`. Whether the register pointer advances
    /// (and how a chip asks for it, like the LIS3DH's bit 7) is the driver's business.
    public func readRegisters(address: I2CAddress, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        let bytes = try writeThenRead(address: address, bytes: [register], readCount: count)
        guard bytes.count == count else {
            throw I2CError(bus: busName, address: address, register: register, kind: .shortTransfer(expected: count, got: bytes.count))
        }
        return bytes
    }

    /// Writes one 8-bit register.
    public func writeRegister(address: I2CAddress, register: UInt8, value: UInt8) throws(I2CError) {
        try write(address: address, bytes: [register, value])
    }

    /// Read-modify-write of the bits selected by `mask`.
    public func updateRegister(address: I2CAddress, register: UInt8, mask: UInt8, value: UInt8) throws(I2CError) {
        let old = try readRegister(address: address, register: register)
        try writeRegister(address: address, register: register, value: (old & ~mask) | (value & mask))
    }
}

/// An I2C transfer that failed, with everything a person needs to find out why.
public struct I2CError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Equatable, Sendable {
        /// Nobody acknowledged the address (ENXIO/EREMOTEIO on Linux): wiring, power or address.
        case noAcknowledge
        /// The transfer failed with this errno (EIO, ETIMEDOUT, ...).
        case io(errno: Int32)
        /// The bus device does not exist (`/dev/i2c-N` missing: I2C not enabled).
        case busMissing
        /// The bus device exists but this user may not open it.
        case permissionDenied
        /// The bus adapter cannot do plain I2C transfers (it speaks SMBus only).
        case plainI2CUnsupported
        /// A kernel driver holds this address (`I2C_SLAVE` answered EBUSY).
        case addressClaimedByKernelDriver
        /// Fewer bytes came back than were asked for.
        case shortTransfer(expected: Int, got: Int)
    }

    public var bus: String
    public var address: I2CAddress
    /// The register the transfer addressed, when it was a register access.
    public var register: UInt8?
    public var kind: Kind

    public init(bus: String, address: I2CAddress, register: UInt8? = nil, kind: Kind) {
        self.bus = bus
        self.address = address
        self.register = register
        self.kind = kind
    }

    public var description: String {
        var place = "\(bus) address \(hex(address))"
        if let register { place += " register \(hex(register))" }
        switch kind {
        case .noAcknowledge:
            return "\(place): no device answered. Check the wiring (SDA, SCL, 3V3, GND) and the address in the board file; `i2cdetect -y N` lists what answers."
        case .io(let errno):
            return "\(place): transfer failed (errno \(errno)). A loose wire or a sensor that lost power does this; it is retried."
        case .busMissing:
            return "\(bus) does not exist: I2C is not enabled. On a Raspberry Pi run `sudo raspi-config nonint do_i2c 0` (or add dtparam=i2c_arm=on to /boot/firmware/config.txt) and reboot."
        case .permissionDenied:
            return "\(bus): permission denied. Add the user to the i2c group (`sudo usermod -aG i2c $USER`, then log in again) or install scripts/99-amble.rules."
        case .plainI2CUnsupported:
            return "\(bus): this I2C adapter speaks SMBus only and cannot do the combined transfers the drivers use. Wire the sensors to a hardware I2C bus (on a Pi: I2C1, header pins 3 and 5)."
        case .addressClaimedByKernelDriver:
            return "\(place): a kernel driver has claimed this address. Unbind it (echo the device name into /sys/bus/i2c/drivers/DRIVER/unbind) or remove the dtoverlay that loads it."
        case .shortTransfer(let expected, let got):
            return "\(place): asked for \(expected) bytes, got \(got)."
        }
    }
}

/// Formats a byte as `0x1f`.
public func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16)
    return "0x" + (digits.count == 1 ? "0" + digits : digits)
}
