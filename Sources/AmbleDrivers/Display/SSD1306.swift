import AmbleHardware

/// Solomon Systech SSD1306 driving a 128×64 OLED over I2C (address 0x3C, or 0x3D with SA0
/// high), as on the common 0.96" breakouts.
///
/// Draw into `framebuffer`, then `flush()` sends the pages that changed since the last flush.
/// Every I2C message starts with a control byte: 0x00 for a stream of commands, 0x40 for a
/// stream of display-RAM data. The panel cannot be read back over I2C, so the driver keeps
/// what it last sent. After any failed transfer it cannot tell a glitch from a panel that lost
/// power (which comes back dark, with random RAM), so the next `flush()` runs the whole set-up
/// again and redraws every page.
///
/// Errors are `SensorError`s naming "SSD1306": the same bus and chip context as the sensors.
public final class SSD1306 {
    enum Control {
        /// Co = 0, D/C# = 0: every following byte of the message is a command.
        static let commandStream: UInt8 = 0x00
        /// Co = 0, D/C# = 1: every following byte of the message goes to display RAM.
        static let dataStream: UInt8 = 0x40
    }

    enum Command {
        static let displayOff: UInt8 = 0xAE
        static let displayOn: UInt8 = 0xAF
        static let setContrast: UInt8 = 0x81             // + 1 byte, 0...255
        static let setClockDivide: UInt8 = 0xD5          // + 1 byte: oscillator[7:4] divide-1[3:0]
        static let setMultiplex: UInt8 = 0xA8            // + 1 byte: rows - 1
        static let setDisplayOffset: UInt8 = 0xD3        // + 1 byte
        static let setStartLineZero: UInt8 = 0x40        // 0x40 | line
        static let chargePump: UInt8 = 0x8D              // + 0x14 on, 0x10 off
        static let setAddressingMode: UInt8 = 0x20       // + 0 horizontal, 1 vertical, 2 page
        static let segmentRemapOff: UInt8 = 0xA0         // column 0 on SEG0
        static let segmentRemapOn: UInt8 = 0xA1          // column 127 on SEG0
        static let comScanNormal: UInt8 = 0xC0           // COM0 first
        static let comScanRemapped: UInt8 = 0xC8         // COM[N-1] first
        static let setCOMPins: UInt8 = 0xDA              // + 1 byte
        static let setPrecharge: UInt8 = 0xD9            // + 1 byte: phase 2[7:4] phase 1[3:0]
        static let setVCOMHDeselect: UInt8 = 0xDB        // + 1 byte
        static let resumeFromRAM: UInt8 = 0xA4           // A5 would light every pixel
        static let normalDisplay: UInt8 = 0xA6           // A7 would invert
        static let stopScroll: UInt8 = 0x2E
        static let setColumnAddress: UInt8 = 0x21        // + start, end
        static let setPageAddress: UInt8 = 0x22          // + start, end
    }

    enum Values {
        static let clockDefault: UInt8 = 0x80            // reset oscillator, divide by 1
        static let chargePumpOn: UInt8 = 0x14
        static let horizontalAddressing: UInt8 = 0x00
        /// Alternative COM pin layout, no left/right remap: how 128×64 modules are wired.
        static let comPinsAlternative: UInt8 = 0x12
        /// Pre-charge for the internal charge pump (phase 2 = 15 clocks, phase 1 = 1).
        static let prechargeChargePump: UInt8 = 0xF1
        static let vcomhAbout077: UInt8 = 0x40
    }

    public static let width = 128
    public static let height = 64

    public let chipName = "SSD1306"
    public let bus: any I2CBus
    public let address: I2CAddress
    /// The module is mounted the other way up: both the segment and COM directions flip.
    public let rotated180: Bool
    /// What the next `flush()` shows.
    public var framebuffer = Framebuffer(width: SSD1306.width, height: SSD1306.height)
    /// Contrast (0...255) sent at set-up and by `setContrast(_:)`.
    public private(set) var contrast: UInt8
    /// Whether the panel is lit (set-up turns it on unless `setDisplayOn(false)` was called).
    public private(set) var isDisplayOn = true
    /// Pages as last sent to the panel; nil where it is not known.
    private var panelPages: [[UInt8]?] = Array(repeating: nil, count: SSD1306.height / 8)
    private var needsSetUp = true
    private let registers: RegisterAccess

    /// - Parameters:
    ///   - address: 0x3C (most breakouts) or 0x3D.
    ///   - rotated180: set when the picture comes out upside down.
    ///   - contrast: 0...255; 0xCF is bright and typical with the internal charge pump.
    public init(bus: any I2CBus, address: I2CAddress = 0x3C, rotated180: Bool = false, contrast: UInt8 = 0xCF) {
        self.bus = bus
        self.address = address
        self.rotated180 = rotated180
        self.contrast = contrast
        registers = RegisterAccess(chip: "SSD1306", bus: bus, address: address)
    }

    /// The commands that set the panel up, display left off.
    var setUpCommands: [UInt8] {
        [
            Command.displayOff,
            Command.setClockDivide, Values.clockDefault,
            Command.setMultiplex, UInt8(Self.height - 1),
            Command.setDisplayOffset, 0,
            Command.setStartLineZero,
            Command.chargePump, Values.chargePumpOn,
            Command.setAddressingMode, Values.horizontalAddressing,
            rotated180 ? Command.segmentRemapOff : Command.segmentRemapOn,
            rotated180 ? Command.comScanNormal : Command.comScanRemapped,
            Command.setCOMPins, Values.comPinsAlternative,
            Command.setContrast, contrast,
            Command.setPrecharge, Values.prechargeChargePump,
            Command.setVCOMHDeselect, Values.vcomhAbout077,
            Command.resumeFromRAM,
            Command.normalDisplay,
            Command.stopScroll,
        ]
    }

    /// Sets the panel up, sends the whole framebuffer (the panel's RAM is random at power-on),
    /// then lights the display. Safe to call again at any time.
    public func configure() throws(SensorError) {
        needsSetUp = true
        panelPages = Array(repeating: nil, count: panelPages.count)
        try commands(setUpCommands)
        try sendPages()
        if isDisplayOn { try commands([Command.displayOn]) }
        needsSetUp = false
    }

    /// Sends the framebuffer's changed pages; after a failure (or before any set-up) runs the
    /// whole set-up instead. Returns the number of pages sent.
    @discardableResult
    public func flush() throws(SensorError) -> Int {
        if needsSetUp {
            try configure()
            return panelPages.count
        }
        return try sendPages()
    }

    /// Lights or darkens the panel; its RAM, and so the picture, is kept.
    public func setDisplayOn(_ on: Bool) throws(SensorError) {
        isDisplayOn = on
        try commands([on ? Command.displayOn : Command.displayOff])
    }

    /// Sets the contrast, 0...255 (brightness, and current drawn).
    public func setContrast(_ value: UInt8) throws(SensorError) {
        contrast = value
        try commands([Command.setContrast, value])
    }

    /// Draws text into the framebuffer; see `Framebuffer.drawText`.
    @discardableResult
    public func drawText(_ text: String, x: Int, y: Int, scale: Int = 1) -> Int {
        framebuffer.drawText(text, x: x, y: y, scale: scale)
    }

    @discardableResult
    private func sendPages() throws(SensorError) -> Int {
        var sent = 0
        for page in 0..<panelPages.count {
            let bytes = Array(framebuffer.page(page))
            if panelPages[page] == bytes { continue }
            // Horizontal addressing: a column and page window of one page, then its 128 bytes.
            try commands([Command.setColumnAddress, 0, UInt8(Self.width - 1), Command.setPageAddress, UInt8(page), UInt8(page)])
            try send([Control.dataStream] + bytes)
            panelPages[page] = bytes
            sent += 1
        }
        return sent
    }

    private func commands(_ bytes: [UInt8]) throws(SensorError) {
        try send([Control.commandStream] + bytes)
    }

    /// One message; a failure leaves the panel's state unknown.
    private func send(_ message: [UInt8]) throws(SensorError) {
        do {
            try bus.write(address: address, bytes: message)
        } catch {
            needsSetUp = true
            throw registers.error(.bus(error))
        }
    }
}
