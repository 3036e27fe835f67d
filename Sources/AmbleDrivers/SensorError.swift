import AmbleHardware

/// A chip that did not come up or stopped answering, with what a maker should do about it.
public struct SensorError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The ID register did not hold what the chip should report.
        case wrongChipID(expected: UInt8, found: UInt8, identified: String?)
        /// A setting the board file asked for that this chip cannot do.
        case unsupportedSetting(String)
        /// A register written during set-up did not read back.
        case setupNotApplied(register: UInt8, wrote: UInt8, readBack: UInt8)
        /// The chip did not finish its reset in time.
        case resetTimedOut
        /// The bus failed.
        case bus(I2CError)
        /// The board file names a chip no driver knows; `supported` lists the names that work.
        case unknownChip(supported: [String])
    }

    /// Chip model, e.g. "LIS3DH".
    public var chip: String
    public var bus: String
    public var address: I2CAddress
    public var kind: Kind

    public init(chip: String, bus: String, address: I2CAddress, kind: Kind) {
        self.chip = chip
        self.bus = bus
        self.address = address
        self.kind = kind
    }

    public var description: String {
        let place = "\(chip) on \(bus) at \(hex(address))"
        switch kind {
        case .wrongChipID(let expected, let found, let identified):
            let what = identified.map { "; that is the ID of a \($0): set that chip in the board file" } ?? "; check the address in the board file (another chip may sit there)"
            return "\(place): chip ID \(hex(found)), expected \(hex(expected))\(what)."
        case .unsupportedSetting(let text):
            return "\(place): \(text)."
        case .setupNotApplied(let register, let wrote, let readBack):
            return "\(place): register \(hex(register)) reads \(hex(readBack)) after writing \(hex(wrote)); the chip is not the one expected or the bus is unreliable."
        case .resetTimedOut:
            return "\(place): did not finish its reset; power-cycle the sensor."
        case .bus(let error):
            return error.description
        case .unknownChip(let supported):
            return "\(chip) on \(bus): no driver for this chip; set one of \(supported.joined(separator: ", ")) in the board file."
        }
    }
}

/// What a chip ID found at an address says about which chip is there.
enum ChipIdentity {
    /// (ID register, value, chip) of the sensors people plug into a band by mistake.
    static let known: [(register: UInt8, value: UInt8, chip: String)] = [
        (0x0F, 0x33, "LIS3DH/LIS2DH12"),
        (0x0F, 0x44, "LIS2DW12"),
        (0x0F, 0x3F, "LIS3DSH"),
        (0x0F, 0x32, "LIS331DLH"),
        (0x0F, 0x69, "LSM6DS3"),
        (0x0F, 0x6A, "LSM6DSL"),
        (0x00, 0xE5, "ADXL345"),
        (0x75, 0x68, "MPU-6050"),
        (0x75, 0x70, "MPU-6500"),
        (0x75, 0x71, "MPU-9250"),
        (0x75, 0x98, "ICM-20689"),
        (0xFF, 0x15, "MAX30102/MAX30101/MAX30105"),
        (0xD0, 0x60, "BME280"),
        (0xD0, 0x58, "BMP280"),
    ]

    /// The chip whose ID register holds its ID at `address`, if any answers.
    static func identify(on bus: any I2CBus, address: I2CAddress, excluding expected: String) -> String? {
        for entry in known where !entry.chip.contains(expected) {
            if let value = try? bus.readRegister(address: address, register: entry.register), value == entry.value {
                return entry.chip
            }
        }
        return nil
    }
}

extension I2CBus {
    /// Writes a register and reads it back, so a wrong chip or a flaky bus shows at set-up.
    func writeVerified(chip: String, address: I2CAddress, register: UInt8, value: UInt8, mask: UInt8 = 0xFF) throws(SensorError) {
        let back: UInt8
        do {
            try writeRegister(address: address, register: register, value: value)
            back = try readRegister(address: address, register: register)
        } catch {
            throw SensorError(chip: chip, bus: busName, address: address, kind: .bus(error))
        }
        if back & mask != value & mask {
            throw SensorError(chip: chip, bus: busName, address: address, kind: .setupNotApplied(register: register, wrote: value, readBack: back))
        }
    }
}

/// Register access that reports failures as `SensorError` of one chip.
struct RegisterAccess {
    let chip: String
    let bus: any I2CBus
    let address: I2CAddress

    func error(_ kind: SensorError.Kind) -> SensorError {
        SensorError(chip: chip, bus: bus.busName, address: address, kind: kind)
    }

    func read(_ register: UInt8) throws(SensorError) -> UInt8 {
        do { return try bus.readRegister(address: address, register: register) } catch { throw self.error(.bus(error)) }
    }

    func read(_ register: UInt8, count: Int) throws(SensorError) -> [UInt8] {
        do { return try bus.readRegisters(address: address, register: register, count: count) } catch { throw self.error(.bus(error)) }
    }

    /// A burst read that sets `failed` when it fails (a read that failed part-way may have
    /// popped data from the chip's FIFO, so the next batch marks a gap) and rethrows. Each
    /// chip clears the flag by its own rule.
    func read(_ register: UInt8, count: Int, markingFailureIn failed: inout Bool) throws(SensorError) -> [UInt8] {
        do { return try read(register, count: count) } catch {
            failed = true
            throw error
        }
    }

    func write(_ register: UInt8, _ value: UInt8) throws(SensorError) {
        do { try bus.writeRegister(address: address, register: register, value: value) } catch { throw self.error(.bus(error)) }
    }

    func writeVerified(_ register: UInt8, _ value: UInt8, mask: UInt8 = 0xFF) throws(SensorError) {
        try bus.writeVerified(chip: chip, address: address, register: register, value: value, mask: mask)
    }

    /// Checks the ID register; a wrong value names the chip found instead when it can.
    func expectChipID(register: UInt8, value expected: UInt8, family: String) throws(SensorError) {
        let found = try read(register)
        guard found == expected else {
            throw error(.wrongChipID(expected: expected, found: found, identified: ChipIdentity.identify(on: bus, address: address, excluding: family)))
        }
    }
}
