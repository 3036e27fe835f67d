#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware
import AmbleLinux
import CI2C

/// An I2C bus on Linux: `/dev/i2c-N` through the i2c-dev driver.
///
/// Register reads are one `I2C_RDWR` transfer (write the register, repeated start, read),
/// which is what every chip Amble drives expects; `smbus*` calls go through libi2c for
/// chips that want SMBus framing.
public final class LinuxI2CBus: I2CBus {
    public let busName: String
    private let fd: Int32
    /// The address the `I2C_SLAVE` ioctl last selected (SMBus calls need it).
    private var selectedAddress: I2CAddress?

    /// Opens `/dev/i2c-<number>` (or a full device path).
    public convenience init(number: Int) throws(I2CError) {
        try self.init(path: "/dev/i2c-\(number)")
    }

    public init(path: String) throws(I2CError) {
        busName = path
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            switch code {
            case ENOENT, ENODEV, ENXIO:
                throw I2CError(bus: path, address: 0, kind: .busMissing)
            case EACCES, EPERM:
                throw I2CError(bus: path, address: 0, kind: .permissionDenied)
            default:
                throw I2CError(bus: path, address: 0, kind: .io(errno: code))
            }
        }
        self.fd = fd
    }

    deinit { closeDescriptor(fd) }

    public func write(address: I2CAddress, bytes: [UInt8]) throws(I2CError) {
        var buffer = bytes
        let result: Result<Int32, Errno> = buffer.withUnsafeMutableBufferPointer { out in
            var message = i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(out.count), buf: out.baseAddress)
            return withUnsafeMutablePointer(to: &message) { messages in
                var request = i2c_rdwr_ioctl_data(msgs: messages, nmsgs: 1)
                return Syscall.retrying { ioctl(fd, UInt(I2C_RDWR), &request) }
            }
        }
        if case .failure(let error) = result {
            throw mapped(error, address: address, register: bytes.first)
        }
    }

    public func writeThenRead(address: I2CAddress, bytes: [UInt8], readCount: Int) throws(I2CError) -> [UInt8] {
        var output = bytes
        var input = [UInt8](repeating: 0, count: readCount)
        let result: Result<Int32, Errno> = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeMutableBufferPointer { inp in
                var messages = [
                    i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(out.count), buf: out.baseAddress),
                    i2c_msg(addr: UInt16(address), flags: UInt16(I2C_M_RD), len: UInt16(inp.count), buf: inp.baseAddress),
                ]
                return messages.withUnsafeMutableBufferPointer { list in
                    var request = i2c_rdwr_ioctl_data(msgs: list.baseAddress, nmsgs: 2)
                    return Syscall.retrying { ioctl(fd, UInt(I2C_RDWR), &request) }
                }
            }
        }
        if case .failure(let error) = result {
            throw mapped(error, address: address, register: bytes.first)
        }
        return input
    }

    // MARK: SMBus (libi2c)
    // libi2c 4.x returns -errno from these calls.

    /// SMBus "read byte data": for chips that only speak SMBus.
    public func smbusReadByte(address: I2CAddress, register: UInt8) throws(I2CError) -> UInt8 {
        try select(address)
        let value = i2c_smbus_read_byte_data(fd, register)
        if value < 0 { throw mapped(Errno(-value), address: address, register: register) }
        return UInt8(truncatingIfNeeded: value)
    }

    /// SMBus "write byte data".
    public func smbusWriteByte(address: I2CAddress, register: UInt8, value: UInt8) throws(I2CError) {
        try select(address)
        let result = i2c_smbus_write_byte_data(fd, register, value)
        if result < 0 { throw mapped(Errno(-result), address: address, register: register) }
    }

    /// SMBus "read word data" (little-endian word, as SMBus defines it).
    public func smbusReadWord(address: I2CAddress, register: UInt8) throws(I2CError) -> UInt16 {
        try select(address)
        let value = i2c_smbus_read_word_data(fd, register)
        if value < 0 { throw mapped(Errno(-value), address: address, register: register) }
        return UInt16(truncatingIfNeeded: value)
    }

    /// SMBus "read block data" through the I2C-block call (up to 32 bytes).
    public func smbusReadBlock(address: I2CAddress, register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try select(address)
        var buffer = [UInt8](repeating: 0, count: max(0, min(count, 32)))
        let got = buffer.withUnsafeMutableBufferPointer {
            i2c_smbus_read_i2c_block_data(fd, register, UInt8($0.count), $0.baseAddress)
        }
        if got < 0 { throw mapped(Errno(-got), address: address, register: register) }
        return Array(buffer.prefix(Int(got)))
    }

    private func select(_ address: I2CAddress) throws(I2CError) {
        if selectedAddress == address { return }
        if case .failure(let error) = Syscall.retrying({ ioctl(fd, UInt(I2C_SLAVE), Int32(address)) }) {
            if error.code == EBUSY {
                throw I2CError(bus: busName, address: address, kind: .addressClaimedByKernelDriver)
            }
            throw mapped(error, address: address, register: nil)
        }
        selectedAddress = address
    }

    private func mapped(_ error: Errno, address: I2CAddress, register: UInt8?) -> I2CError {
        let kind: I2CError.Kind
        switch error.code {
        case ENXIO, EREMOTEIO, ENODEV:
            // The bus is open, so ENODEV names the address, not the bus: the kernel's
            // i2c-stub answers a transfer to an address it has no chip at with ENODEV.
            kind = .noAcknowledge
        case ENOENT:
            kind = .busMissing
        case EACCES, EPERM:
            kind = .permissionDenied
        case EOPNOTSUPP:
            // I2C_RDWR on an SMBus-only adapter; it would fail the same way every time.
            kind = .plainI2CUnsupported
        default:
            kind = .io(errno: error.code)
        }
        return I2CError(bus: busName, address: address, register: register, kind: kind)
    }
}
