import AmbleDrivers
import AmbleEmulators
import AmbleHardware
import Testing

struct SSD1306Tests {
    let bus = EmulatedI2CBus()
    let panel = SSD1306Emulator()

    init() {
        bus.attach(panel, at: 0x3C)
    }

    /// Pixels where the panel differs from the framebuffer.
    func differences(_ framebuffer: Framebuffer) -> Int {
        var count = 0
        for y in 0..<64 {
            for x in 0..<128 where panel.panelPixel(x: x, y: y) != framebuffer.pixel(x: x, y: y) { count += 1 }
        }
        return count
    }

    /// A picture touching every page and both edges.
    func drawTestPicture(on display: SSD1306) {
        display.framebuffer.drawRect(x: 0, y: 0, width: 128, height: 64)
        display.framebuffer.drawLine(fromX: 0, y: 0, toX: 127, y: 63)
        display.framebuffer.drawRect(x: 90, y: 40, width: 20, height: 10, filled: true)
        display.drawText("Walk 12:34", x: 4, y: 4)
        display.drawText("88", x: 20, y: 20, scale: 3)
    }

    @Test func setUpClearsThePowerOnNoiseAndLightsThePanel() throws {
        #expect(panel.ram.contains { $0 != 0 })  // random at power-on
        #expect(!panel.isDisplayOn)
        let display = SSD1306(bus: bus)
        try display.configure()
        #expect(panel.isDisplayOn)
        #expect(panel.chargePumpEnabled)
        #expect(panel.contrast == 0xCF)
        #expect(panel.addressingMode == 0)
        #expect(panel.segmentRemap && panel.comScanRemapped)
        #expect(panel.ram.allSatisfy { $0 == 0 })
        #expect(panel.unknownCommands.isEmpty)
        #expect(panel.malformedControlBytes == 0)
        #expect(!panel.renderPanel().contains("#"))
    }

    @Test func whatIsDrawnIsWhatThePanelShows() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        drawTestPicture(on: display)
        #expect(try display.flush() == 8)
        #expect(differences(display.framebuffer) == 0)
        #expect(panel.panelPixel(x: 0, y: 0))
        #expect(panel.panelPixel(x: 127, y: 63))
        #expect(panel.renderPanel() == display.framebuffer.textArt())
    }

    @Test func textShowsAsTheGlyphsAreDrawn() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        display.drawText("Hi!", x: 1, y: 2)
        try display.flush()
        // The glyphs, typed out here independently of the font table.
        let h = ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]
        let i = ["..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."]
        let bang = ["..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#.."]
        let rows = panel.renderPanel().split(separator: "\n").map(String.init)
        for row in 0..<7 {
            let expected = "." + h[row] + "." + i[row] + "." + bang[row] + "."
            #expect(String(rows[2 + row].prefix(19)) == expected, "row \(row)")
        }
        #expect(!rows[1].contains("#"))
        #expect(!rows[9].contains("#"))
    }

    @Test func scaledTextMakesEveryFontPixelASquare() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        let end = display.drawText("1", x: 10, y: 10, scale: 2)
        #expect(end == 22)
        try display.flush()
        // The top of "1" is its middle column: x 14...15 at scale 2, rows 10...11.
        for (x, y) in [(14, 10), (15, 10), (14, 11), (15, 11)] { #expect(panel.panelPixel(x: x, y: y)) }
        #expect(!panel.panelPixel(x: 16, y: 10))
        #expect(!panel.panelPixel(x: 13, y: 10))
    }

    @Test func flushSendsOnlyThePagesThatChanged() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        #expect(try display.flush() == 0)
        display.framebuffer.setPixel(x: 5, y: 30)  // page 3
        let before = bus.transferCount[0x3C]!
        #expect(try display.flush() == 1)
        #expect(bus.transferCount[0x3C]! - before == 2)  // the window commands, then 128 data bytes
        #expect(panel.panelPixel(x: 5, y: 30))
    }

    @Test func aNackDuringFlushIsReportedAndTheNextFlushRepairs() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        drawTestPicture(on: display)
        bus.failNext(1, at: 0x3C, with: .noAcknowledge, afterTransfers: 5)
        let error = #expect(throws: SensorError.self) { try display.flush() }
        guard case .bus(let busError)? = error?.kind else { Issue.record("expected a bus error"); return }
        #expect(busError.kind == .noAcknowledge)
        #expect(error?.description.contains("no device answered") == true)
        #expect(differences(display.framebuffer) > 0)
        #expect(try display.flush() == 8)  // set up again, every page redrawn
        #expect(differences(display.framebuffer) == 0)
    }

    @Test func ioErrorsOnTheNextTransfersThenRecovery() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        drawTestPicture(on: display)
        bus.failNext(3, at: 0x3C, with: .io(errno: 5))
        for _ in 0..<3 {
            let error = #expect(throws: SensorError.self) { try display.flush() }
            #expect(error?.chip == "SSD1306")
        }
        try display.flush()
        #expect(differences(display.framebuffer) == 0)
    }

    @Test func aPanelThatLostPowerIsSetUpAgain() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        drawTestPicture(on: display)
        try display.flush()
        bus.unplug(0x3C)
        display.framebuffer.drawRect(x: 60, y: 54, width: 4, height: 4, filled: true)
        #expect(throws: SensorError.self) { try display.flush() }
        bus.plug(0x3C)
        #expect(!panel.isDisplayOn)  // back in its power-on state
        try display.flush()
        #expect(panel.isDisplayOn)
        #expect(differences(display.framebuffer) == 0)
    }

    @Test func displayOffKeepsThePictureAndContrastIsSent() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        drawTestPicture(on: display)
        try display.flush()
        try display.setDisplayOn(false)
        #expect(!panel.renderPanel().contains("#"))
        try display.setContrast(0x10)
        #expect(panel.contrast == 0x10)
        try display.setDisplayOn(true)
        #expect(differences(display.framebuffer) == 0)
        // A set-up again keeps the contrast and on/off state asked for.
        try display.setDisplayOn(false)
        bus.unplug(0x3C)
        bus.plug(0x3C)
        try display.configure()
        #expect(panel.contrast == 0x10)
        #expect(!panel.isDisplayOn)
    }

    @Test func aModuleMountedTheOtherWayGetsThePictureUpright() throws {
        let display = SSD1306(bus: bus, rotated180: true)
        try display.configure()
        drawTestPicture(on: display)
        try display.flush()
        // The emulated module is mounted the usual way, so the picture arrives turned round:
        // which proves the flip reaches the chip. On a module mounted the other way it is upright.
        var mismatches = 0
        for y in 0..<64 {
            for x in 0..<128 where panel.panelPixel(x: 127 - x, y: 63 - y) != display.framebuffer.pixel(x: x, y: y) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
    }

    @Test func emulatorDecodesSingleBytesControlsAndPageAddressing() throws {
        // Co = 1: each command byte has its own control byte, arguments included.
        try bus.write(address: 0x3C, bytes: [0x80, 0x8D, 0x80, 0x14, 0x80, 0xA1, 0x80, 0xC8, 0x80, 0xAF])
        #expect(panel.chargePumpEnabled && panel.isDisplayOn)
        // Page addressing (the power-on mode): page 2, column 0x15, then two data bytes.
        try bus.write(address: 0x3C, bytes: [0x00, 0xB2, 0x05, 0x11])
        try bus.write(address: 0x3C, bytes: [0x40, 0xFF])
        try bus.write(address: 0x3C, bytes: [0xC0, 0x81])  // Co = 1, data: one byte
        #expect(panel.ram[2 * 128 + 21] == 0xFF)
        #expect(panel.ram[2 * 128 + 22] == 0x81)
        #expect(panel.ramPixel(column: 22, row: 16) && panel.ramPixel(column: 22, row: 23))
        #expect(!panel.ramPixel(column: 22, row: 17))
        // A command split across two messages still gets its argument.
        try bus.write(address: 0x3C, bytes: [0x00, 0x81])
        try bus.write(address: 0x3C, bytes: [0x00, 0x33])
        #expect(panel.contrast == 0x33)
        #expect(panel.unknownCommands.isEmpty)
        // A status read says whether the display is on (D6 set while off).
        #expect(try bus.writeThenRead(address: 0x3C, bytes: [], readCount: 1) == [0x00])
    }

    @Test func verticalAddressingWalksDownThePages() throws {
        try bus.write(address: 0x3C, bytes: [0x00, 0x8D, 0x14, 0xAF, 0x20, 0x01, 0x21, 10, 11, 0x22, 0, 7])
        try bus.write(address: 0x3C, bytes: [0x40] + (0..<16).map { UInt8($0) })
        let column10: [UInt8] = (0..<8).map { panel.ram[$0 * 128 + 10] }
        let column11: [UInt8] = (0..<8).map { panel.ram[$0 * 128 + 11] }
        #expect(column10 == Array(0...7))
        #expect(column11 == Array(8...15))
    }

    @Test func theWrongCOMPinLayoutScramblesThePicture() throws {
        let display = SSD1306(bus: bus)
        try display.configure()
        drawTestPicture(on: display)
        try display.flush()
        try bus.write(address: 0x3C, bytes: [0x00, 0xDA, 0x02])  // sequential: not how 128×64 modules are wired
        #expect(differences(display.framebuffer) > 0)
    }
}
