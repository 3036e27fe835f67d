#if canImport(Glibc)
import Glibc
#endif

/// What the VM's init script set up (scripts/hil.d/init), found through sysfs and configfs.
///
/// The init script loads the kernel's own i2c-stub (SMBus only) and amble-i2c-stub (the same
/// driver with plain I2C transfers added), both with chips at 0x18 and 0x57, and makes a
/// gpio-sim chip with one bank of `SimLine.count` lines. Keep `SimLine` and the init script
/// in step.
struct HILEnvironment {
    /// Bus number of the kernel's unmodified i2c-stub ("SMBus stub driver").
    var smbusOnlyBus: Int
    /// Bus number of amble-i2c-stub ("Amble I2C stub"), which also takes I2C_RDWR.
    var i2cBus: Int
    /// The gpio-sim chip's name (`gpiochipN`) and label.
    var gpioChipName: String
    var gpioChipLabel: String
    /// The chip's sysfs directory, which holds `sim_gpioN/value` and `sim_gpioN/pull`.
    var gpioSimDirectory: String

    static let configfsBank = "/sys/kernel/config/gpio-sim/amble/bank0"
    static let configfsDevice = "/sys/kernel/config/gpio-sim/amble"

    static func discover() throws -> HILEnvironment {
        var buses: [String: Int] = [:]
        for entry in Sysfs.list("/sys/class/i2c-dev") where entry.hasPrefix("i2c-") {
            guard let number = Int(entry.dropFirst(4)),
                  let name = Sysfs.read("/sys/class/i2c-dev/\(entry)/name") else { continue }
            buses[name] = number
        }
        guard let smbus = buses["SMBus stub driver"] else {
            throw CheckFailure("no i2c-stub bus in /sys/class/i2c-dev (found \(buses))")
        }
        guard let i2c = buses["Amble I2C stub"] else {
            throw CheckFailure("no amble-i2c-stub bus in /sys/class/i2c-dev (found \(buses))")
        }
        guard let chip = Sysfs.read("\(configfsBank)/chip_name"), chip.hasPrefix("gpiochip") else {
            throw CheckFailure("gpio-sim bank \(configfsBank) has no chip_name: is the device live?")
        }
        guard let device = Sysfs.read("\(configfsDevice)/dev_name") else {
            throw CheckFailure("gpio-sim device \(configfsDevice) has no dev_name")
        }
        let label = Sysfs.read("\(configfsBank)/label") ?? ""
        return HILEnvironment(smbusOnlyBus: smbus, i2cBus: i2c, gpioChipName: chip, gpioChipLabel: label,
                              gpioSimDirectory: "/sys/devices/platform/\(device)/\(chip)")
    }

    func valuePath(_ line: SimLine) -> String { "\(gpioSimDirectory)/sim_gpio\(line.rawValue)/value" }
    func pullPath(_ line: SimLine) -> String { "\(gpioSimDirectory)/sim_gpio\(line.rawValue)/pull" }

    /// The physical level of a line as gpio-sim sees it: what an output drives, or what the
    /// pull makes an input read.
    func level(_ line: SimLine) throws -> Int {
        guard let text = Sysfs.read(valuePath(line)), let value = Int(text) else {
            throw CheckFailure("cannot read \(valuePath(line))")
        }
        return value
    }

    /// Pulls a line up (a button to 3V3 pressed, or an active-low button released) or down.
    func pull(_ line: SimLine, up: Bool) throws {
        try Sysfs.write(pullPath(line), up ? "pull-up" : "pull-down")
    }
}

/// The lines of the gpio-sim bank, by offset. The init script names some of them (gpio-sim's
/// `name` attribute) so lookup by name is tested; the others are found by offset.
enum SimLine: Int, CaseIterable {
    case motor = 0            // named "motor"
    case motorActiveLow = 1   // named "motor-n"
    case selectButton = 2     // named "button-select": active high, pull-down
    case nextButton = 3       // named "button-next": active low, pull-up
    case backButton = 4       // unnamed: active high, pull-down, found by offset
    case spare = 5            // unnamed
    static let count = 8

    var name: String? {
        switch self {
        case .motor: return "motor"
        case .motorActiveLow: return "motor-n"
        case .selectButton: return "button-select"
        case .nextButton: return "button-next"
        case .backButton, .spare: return nil
        }
    }
}

/// Small sysfs and configfs file access for the checks (the Linux layer under test never
/// touches these files; only the test does, to play the other side of the wire).
enum Sysfs {
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 256) }
        if got < 0 { return nil }
        var text = String(decoding: buffer.prefix(got), as: UTF8.self)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw CheckFailure("cannot open \(path): errno \(errno)") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, bytes.count) }
        if sent != bytes.count { throw CheckFailure("cannot write \"\(text)\" to \(path): errno \(errno)") }
    }

    static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

/// CLOCK_MONOTONIC in seconds: the clock of GPIO edge timestamps and of `SystemClock`.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
