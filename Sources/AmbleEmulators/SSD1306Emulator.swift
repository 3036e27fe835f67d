import AmbleHardware

/// An SSD1306 with a 128×64 panel at the I2C level: the control bytes, the command decoder,
/// the display RAM and what the panel shows.
///
/// Emulated: control bytes (Co and D/C#: a stream of commands or of data, or one byte and
/// another control byte); commands with their argument bytes, also split across control bytes
/// and messages; display on/off, contrast, entire-display-on, inverse; charge pump (the panel
/// stays dark without it, as on breakouts with no external supply); memory addressing modes
/// (horizontal, vertical, page) with column and page windows and wrap-around; page-mode
/// start page and column nibbles; segment remap and COM scan direction; multiplex ratio,
/// display start line and offset (both shift the picture vertically); COM pin configuration
/// (anything but the alternative layout 128×64 modules are wired for interleaves the rows).
/// Power-on state as in the datasheet: display off, charge pump off, page addressing, and RAM
/// full of noise. A read returns the status byte (D6 set while the display is off).
///
/// The module is taken as mounted the way the common breakouts are: the picture is upright
/// with segment remap on (0xA1) and COM scan remapped (0xC8), upside down with both off.
public final class SSD1306Emulator: I2CDeviceEmulator {
    public static let width = 128
    public static let height = 64

    /// Display RAM: page-major, 128 bytes per page, bit 0 the top row of the page.
    public private(set) var ram = [UInt8](repeating: 0, count: 1024)
    public private(set) var isDisplayOn = false
    public private(set) var contrast: UInt8 = 0x7F
    public private(set) var isInverted = false
    public private(set) var entireDisplayOn = false
    public private(set) var chargePumpEnabled = false
    /// 0 horizontal, 1 vertical, 2 page.
    public private(set) var addressingMode: UInt8 = 2
    public private(set) var segmentRemap = false
    public private(set) var comScanRemapped = false
    public private(set) var multiplexRatio = 64
    public private(set) var startLine = 0
    public private(set) var displayOffset = 0
    public private(set) var comPins: UInt8 = 0x12
    /// Commands the decoder did not know, in order (for tests).
    public private(set) var unknownCommands: [UInt8] = []
    /// Control bytes with the low six bits set, which the datasheet says must be zero.
    public private(set) var malformedControlBytes = 0

    private var column = 0
    private var page = 0
    private var columnStart = 0
    private var columnEnd = 127
    private var pageStart = 0
    private var pageEnd = 7
    /// A command waiting for its argument bytes.
    private var pending: [UInt8] = []
    private var pendingArguments = 0
    private var noiseSeed: UInt64 = 0x2545_F491_4F6C_DD1D

    public init() {
        powerOnReset()
    }

    public func powerOnReset() {
        // RAM is not cleared at power-on: whatever the cells hold shows once lit.
        for i in ram.indices {
            noiseSeed = noiseSeed &* 6364136223846793005 &+ 1442695040888963407
            ram[i] = UInt8(truncatingIfNeeded: noiseSeed >> 33)
        }
        isDisplayOn = false
        contrast = 0x7F
        isInverted = false
        entireDisplayOn = false
        chargePumpEnabled = false
        addressingMode = 2
        segmentRemap = false
        comScanRemapped = false
        multiplexRatio = 64
        startLine = 0
        displayOffset = 0
        comPins = 0x12
        column = 0
        page = 0
        columnStart = 0
        columnEnd = 127
        pageStart = 0
        pageEnd = 7
        pending = []
        pendingArguments = 0
    }

    // MARK: I2CDeviceEmulator

    public func receive(write bytes: [UInt8]) throws(EmulatedBusFault) {
        var index = 0
        while index < bytes.count {
            let control = bytes[index]
            index += 1
            if control & 0x3F != 0 { malformedControlBytes += 1 }
            let isData = control & 0x40 != 0
            let continuation = control & 0x80 != 0
            let end = continuation ? min(index + 1, bytes.count) : bytes.count
            for byte in bytes[index..<end] {
                if isData { writeData(byte) } else { command(byte) }
            }
            index = end
        }
    }

    public func respond(readCount count: Int) throws(EmulatedBusFault) -> [UInt8] {
        Array(repeating: isDisplayOn ? 0x00 : 0x40, count: count)
    }

    // MARK: Commands

    /// Argument bytes each command takes.
    private static func argumentCount(_ command: UInt8) -> Int {
        switch command {
        case 0x81, 0x20, 0xA8, 0xD3, 0xDA, 0xD5, 0xD9, 0xDB, 0x8D: return 1
        case 0x21, 0x22, 0xA3: return 2
        case 0x29, 0x2A: return 5
        case 0x26, 0x27: return 6
        default: return 0
        }
    }

    private func command(_ byte: UInt8) {
        if pendingArguments > 0 {
            pending.append(byte)
            pendingArguments -= 1
        } else {
            pending = [byte]
            pendingArguments = Self.argumentCount(byte)
        }
        if pendingArguments == 0 { execute(pending) }
    }

    private func execute(_ command: [UInt8]) {
        let code = command[0]
        switch code {
        case 0x00...0x0F:
            columnStart = columnStart & 0xF0 | Int(code & 0x0F)
            if addressingMode == 2 { column = columnStart }
        case 0x10...0x1F:
            columnStart = columnStart & 0x0F | Int(code & 0x07) << 4
            if addressingMode == 2 { column = columnStart }
        case 0x20: addressingMode = min(command[1] & 0x03, 2)
        case 0x21:
            columnStart = Int(command[1] & 0x7F)
            columnEnd = Int(command[2] & 0x7F)
            column = columnStart
        case 0x22:
            pageStart = Int(command[1] & 0x07)
            pageEnd = Int(command[2] & 0x07)
            page = pageStart
        case 0x26, 0x27, 0x29, 0x2A, 0x2E, 0x2F, 0xA3:
            break  // scrolling: not emulated
        case 0x40...0x7F: startLine = Int(code & 0x3F)
        case 0x81: contrast = command[1]
        case 0x8D: chargePumpEnabled = command[1] & 0x04 != 0
        case 0xA0, 0xA1: segmentRemap = code == 0xA1
        case 0xA4, 0xA5: entireDisplayOn = code == 0xA5
        case 0xA6, 0xA7: isInverted = code == 0xA7
        case 0xA8: multiplexRatio = max(16, Int(command[1] & 0x3F) + 1)
        case 0xAE, 0xAF: isDisplayOn = code == 0xAF
        case 0xB0...0xB7:
            page = Int(code & 0x07)
        case 0xC0, 0xC8: comScanRemapped = code == 0xC8
        case 0xD3: displayOffset = Int(command[1] & 0x3F)
        case 0xDA: comPins = command[1]
        case 0xD5, 0xD9, 0xDB, 0xE3:
            break  // timing and voltages, and NOP: accepted, no visible effect here
        default:
            unknownCommands.append(code)
        }
    }

    private func writeData(_ byte: UInt8) {
        ram[page * Self.width + column] = byte
        switch addressingMode {
        case 0:  // horizontal: along the page, then the next page of the window
            if column >= columnEnd {
                column = columnStart
                page = page >= pageEnd ? pageStart : page + 1
            } else {
                column += 1
            }
        case 1:  // vertical: down the pages, then the next column
            if page >= pageEnd {
                page = pageStart
                column = column >= columnEnd ? columnStart : column + 1
            } else {
                page += 1
            }
        default:  // page: along the page only, wrapping within it
            column = column >= 127 ? columnStart : column + 1
        }
    }

    // MARK: What the panel shows

    /// The RAM bit at `column` (0...127) and `row` (0...63).
    public func ramPixel(column: Int, row: Int) -> Bool {
        ram[(row / 8) * Self.width + column] & (1 << (row % 8)) != 0
    }

    /// Whether the pixel at (x, y) of the mounted panel, from its top-left corner, is lit.
    public func panelPixel(x: Int, y: Int) -> Bool {
        guard isDisplayOn, chargePumpEnabled else { return false }
        if entireDisplayOn { return true }
        // The module is mounted rotated: physical x faces SEG(127 - x), physical y COM(63 - y).
        let segment = Self.width - 1 - x
        let com = Self.height - 1 - y
        let ramColumn = segmentRemap ? Self.width - 1 - segment : segment
        var row = comScanRemapped ? multiplexRatio - 1 - com : com
        guard row >= 0, row < multiplexRatio else { return false }
        if comPins & 0x10 == 0 {
            row = row % 2 == 0 ? row / 2 : Self.height / 2 + row / 2  // sequential pins on an alternative-wired panel
        }
        let ramRow = (row + startLine + displayOffset) % Self.height
        return ramPixel(column: ramColumn, row: ramRow) != isInverted
    }

    /// The panel as text, one line per row from the top, `#` lit and `.` dark.
    public func renderPanel() -> String {
        (0..<Self.height).map { y in String((0..<Self.width).map { panelPixel(x: $0, y: y) ? "#" : "." }) }
            .joined(separator: "\n")
    }
}
