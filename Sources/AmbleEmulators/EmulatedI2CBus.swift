import AmbleHardware

/// A chip at register level, as it answers I2C messages.
///
/// A transfer arrives as its messages: a write message (usually the register pointer, then
/// data) and/or a read message. An emulator behaves like the chip: a command write changes
/// its state, a status read reports what its FIFO holds, an unexpected shape is an I/O error.
public protocol I2CDeviceEmulator: AnyObject {
    /// Handles a write message. Throw `EmulatedBusFault.io` for a message the chip would refuse.
    func receive(write bytes: [UInt8]) throws(EmulatedBusFault)
    /// Answers a read message of `count` bytes.
    func respond(readCount count: Int) throws(EmulatedBusFault) -> [UInt8]
    /// Puts the chip back in its power-on state (it was unplugged and plugged back).
    func powerOnReset()
}

/// A chip whose sampling can be frozen (fault injection): while `fifoStuck` is true the chip
/// answers as usual, but no new sample enters its FIFO; what it should have sampled is lost.
public protocol StallableEmulator: I2CDeviceEmulator {
    var fifoStuck: Bool { get set }
}

/// A failure an emulated bus produces, like the kernel would.
public enum EmulatedBusFault: Error, Equatable, Sendable {
    /// Nothing acknowledged the address.
    case noAcknowledge
    /// The transfer failed with this errno (5 = EIO, 110 = ETIMEDOUT).
    case io(errno: Int32)
}

/// An I2C bus with emulated chips on it, and fault injection per address.
///
/// Drivers use it exactly like `/dev/i2c-N`. Tests and the simulated board make faults:
/// `failNext(_:at:with:)` fails the next N transfers, `unplug(_:)` makes a chip vanish until
/// `plug(_:)` brings it back in its power-on state.
public final class EmulatedI2CBus: I2CBus {
    public let busName: String
    private var devices: [I2CAddress: any I2CDeviceEmulator] = [:]
    private var unplugged: Set<I2CAddress> = []
    /// Addresses whose transfers fail at random: the share that fails, and the generator's state.
    private var flaky: [I2CAddress: Double] = [:]
    private var flakyState: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// Addresses whose reads return zeros (a wedged chip); writes are taken and dropped.
    private var wedged: Set<I2CAddress> = []
    private var pendingFaults: [I2CAddress: (skip: Int, remaining: Int, fault: EmulatedBusFault)] = [:]
    /// Transfers made so far, per address (to check what a driver did).
    public private(set) var transferCount: [I2CAddress: Int] = [:]

    public init(busName: String = "emulated-i2c-1") {
        self.busName = busName
    }

    public func attach(_ device: any I2CDeviceEmulator, at address: I2CAddress) {
        devices[address] = device
    }

    /// Fails the next `count` transfers to `address` with `fault`, after letting
    /// `afterTransfers` transfers through (to hit a driver in the middle of a read).
    public func failNext(_ count: Int, at address: I2CAddress, with fault: EmulatedBusFault = .io(errno: 5), afterTransfers: Int = 0) {
        pendingFaults[address] = (afterTransfers, count, fault)
    }

    /// The chip stops answering (a loose wire, a sensor that lost power).
    public func unplug(_ address: I2CAddress) {
        unplugged.insert(address)
    }

    /// From now on `share` (0 to 1) of the transfers to `address` fail with EIO, picked by a
    /// fixed-seed generator (a run repeats exactly); 0 ends it.
    public func setFlaky(_ address: I2CAddress, share: Double) {
        flaky[address] = share > 0 ? min(share, 1) : nil
    }

    /// The chip answers every read with zeros and ignores writes (wedged), or works again
    /// from its power-on state.
    public func setWedged(_ address: I2CAddress, _ isWedged: Bool) {
        if isWedged {
            wedged.insert(address)
        } else if wedged.remove(address) != nil {
            devices[address]?.powerOnReset()
        }
    }

    /// The chip answers again, from its power-on state.
    public func plug(_ address: I2CAddress) {
        if unplugged.remove(address) != nil {
            devices[address]?.powerOnReset()
        }
    }


    public func write(address: I2CAddress, bytes: [UInt8]) throws(I2CError) {
        let device = try deviceFor(address, register: bytes.first)
        if wedged.contains(address) { return }
        do {
            try device.receive(write: bytes)
        } catch {
            throw translate(error, address: address, register: bytes.first)
        }
    }

    public func writeThenRead(address: I2CAddress, bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8] {
        let device = try deviceFor(address, register: bytes.first)
        if wedged.contains(address) { return [UInt8](repeating: 0, count: readCount) }
        do {
            try device.receive(write: bytes)
            return try device.respond(readCount: readCount)
        } catch {
            throw translate(error, address: address, register: bytes.first)
        }
    }

    private func deviceFor(_ address: I2CAddress, register: UInt8?) throws(I2CError) -> any I2CDeviceEmulator {
        transferCount[address, default: 0] += 1
        if var pending = pendingFaults[address], pending.skip > 0 {
            pending.skip -= 1
            pendingFaults[address] = pending
        } else if var pending = pendingFaults[address], pending.remaining > 0 {
            pending.remaining -= 1
            pendingFaults[address] = pending.remaining > 0 ? pending : nil
            throw translate(pending.fault, address: address, register: register)
        }
        guard let device = devices[address], !unplugged.contains(address) else {
            throw I2CError(bus: busName, address: address, register: register, kind: .noAcknowledge)
        }
        if let share = flaky[address] {
            // xorshift64*: a uniform draw in [0, 1)
            flakyState ^= flakyState >> 12
            flakyState ^= flakyState << 25
            flakyState ^= flakyState >> 27
            let draw = Double((flakyState &* 0x2545_F491_4F6C_DD1D) >> 11) / Double(1 << 53)
            if draw < share { throw I2CError(bus: busName, address: address, register: register, kind: .io(errno: 5)) }
        }
        return device
    }

    private func translate(_ fault: EmulatedBusFault, address: I2CAddress, register: UInt8?) -> I2CError {
        switch fault {
        case .noAcknowledge: return I2CError(bus: busName, address: address, register: register, kind: .noAcknowledge)
        case .io(let errno): return I2CError(bus: busName, address: address, register: register, kind: .io(errno: errno))
        }
    }
}
