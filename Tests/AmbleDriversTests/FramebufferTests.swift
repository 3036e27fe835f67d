import AmbleDrivers
import Testing

struct FramebufferTests {
    @Test func pixelsLandInPagesWithBitZeroOnTop() {
        var framebuffer = Framebuffer()
        framebuffer.setPixel(x: 3, y: 0)
        framebuffer.setPixel(x: 3, y: 9)
        framebuffer.setPixel(x: 127, y: 63)
        #expect(framebuffer.bytes[3] == 0x01)
        #expect(framebuffer.bytes[128 + 3] == 0x02)
        #expect(framebuffer.bytes[7 * 128 + 127] == 0x80)
        framebuffer.setPixel(x: 3, y: 9, on: false)
        #expect(framebuffer.bytes[128 + 3] == 0)
    }

    @Test func drawingOffThePictureIsClipped() {
        var framebuffer = Framebuffer()
        framebuffer.setPixel(x: -1, y: 0)
        framebuffer.setPixel(x: 128, y: 0)
        framebuffer.setPixel(x: 0, y: 64)
        framebuffer.drawRect(x: -10, y: -10, width: 15, height: 15, filled: true)
        framebuffer.drawText("Clipped", x: 120, y: 60)
        #expect(framebuffer.pixel(x: 4, y: 4))
        #expect(!framebuffer.pixel(x: 5, y: 5))
        #expect(!framebuffer.pixel(x: -1, y: 0))
    }

    @Test func linesIncludeBothEnds() {
        var framebuffer = Framebuffer()
        framebuffer.drawLine(fromX: 10, y: 5, toX: 2, y: 1)
        #expect(framebuffer.pixel(x: 10, y: 5))
        #expect(framebuffer.pixel(x: 2, y: 1))
        framebuffer.clear()
        framebuffer.drawLine(fromX: 0, y: 7, toX: 127, y: 7)
        #expect((0..<128).allSatisfy { framebuffer.pixel(x: $0, y: 7) })
        #expect(framebuffer.bytes.filter { $0 != 0 }.count == 128)
    }

    @Test func rectanglesOutlinedOrFilled() {
        var framebuffer = Framebuffer()
        framebuffer.drawRect(x: 2, y: 2, width: 4, height: 3)
        let art = framebuffer.textArt().split(separator: "\n").prefix(6).map { String($0.prefix(8)) }
        #expect(art == ["........", "........", "..####..", "..#..#..", "..####..", "........"])
        framebuffer.drawRect(x: 2, y: 2, width: 4, height: 3, filled: true)
        #expect(framebuffer.pixel(x: 3, y: 3))
        framebuffer.drawRect(x: 0, y: 0, width: 128, height: 64, filled: true, on: false)
        #expect(framebuffer.bytes.allSatisfy { $0 == 0 })
    }

    @Test func invertedTextIsCutOutOfAFilledBar() {
        var framebuffer = Framebuffer()
        framebuffer.drawRect(x: 0, y: 0, width: 128, height: 9, filled: true)
        framebuffer.drawText("I", x: 1, y: 1, on: false)
        #expect(!framebuffer.pixel(x: 2, y: 1))  // the top bar of "I"
        #expect(framebuffer.pixel(x: 1, y: 1))
    }

    @Test func fontCoversPrintableASCIIWithDistinctGlyphs() {
        var seen: [[UInt8]: Character] = [:]
        for code in 0x21...0x7E {
            let character = Character(Unicode.Scalar(UInt8(code)))
            #expect(BitmapFont.covers(character), "\(character)")
            let columns = BitmapFont.columns(for: character)
            #expect(columns.count == 5)
            #expect(columns.allSatisfy { $0 < 0x80 }, "\(character) fits in 7 rows")
            #expect(seen[columns] == nil, "\(character) looks like \(seen[columns].map(String.init) ?? "")")
            seen[columns] = character
        }
        #expect(BitmapFont.columns(for: " ") == [0, 0, 0, 0, 0])
        #expect(!BitmapFont.covers("é"))
        #expect(BitmapFont.columns(for: "é") == [0x7F, 0x41, 0x41, 0x41, 0x7F])  // a box
    }

    @Test func textWidthAndLines() {
        #expect(BitmapFont.width(of: "") == 0)
        #expect(BitmapFont.width(of: "A") == 5)
        #expect(BitmapFont.width(of: "12:34") == 29)
        #expect(BitmapFont.width(of: "12:34", scale: 3) == 87)
        var framebuffer = Framebuffer()
        let end = framebuffer.drawText("ab\nc", x: 0, y: 0)
        #expect(end == 6)
        #expect(framebuffer.pixel(x: 1, y: 8 + 2))  // "c" on the second line: its top stroke at row 2
    }
}
