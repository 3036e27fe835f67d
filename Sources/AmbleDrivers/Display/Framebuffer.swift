/// A 1-bit picture for a monochrome display, drawn in memory and sent to the panel by its
/// driver (`SSD1306.flush()`).
///
/// Coordinates are pixels from the top-left corner, x to the right, y down. Drawing outside
/// the picture is clipped, never an error. The bytes are laid out like the SSD1306's display
/// RAM: `height / 8` pages of `width` bytes, each byte a column of 8 pixels with bit 0 on top,
/// so a page goes to the panel as it is.
public struct Framebuffer: Equatable, Sendable {
    public let width: Int
    public let height: Int
    /// Page-major: byte `page * width + x` holds pixels (x, page * 8 ... page * 8 + 7), bit 0 on top.
    public private(set) var bytes: [UInt8]

    /// - Parameters:
    ///   - width: pixels, 1 or more.
    ///   - height: pixels, a multiple of 8.
    public init(width: Int = 128, height: Int = 64) {
        precondition(width > 0 && height > 0 && height % 8 == 0, "a framebuffer is whole pages of 8 rows")
        self.width = width
        self.height = height
        bytes = [UInt8](repeating: 0, count: width * height / 8)
    }

    /// The `width` bytes of one page (rows `page * 8 ... page * 8 + 7`).
    public func page(_ page: Int) -> ArraySlice<UInt8> {
        bytes[page * width ..< (page + 1) * width]
    }

    /// Sets every pixel off (or on).
    public mutating func clear(on: Bool = false) {
        bytes = [UInt8](repeating: on ? 0xFF : 0, count: bytes.count)
    }

    public func pixel(x: Int, y: Int) -> Bool {
        guard x >= 0, x < width, y >= 0, y < height else { return false }
        return bytes[(y / 8) * width + x] & (1 << (y % 8)) != 0
    }

    public mutating func setPixel(x: Int, y: Int, on: Bool = true) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        let index = (y / 8) * width + x
        let bit = UInt8(1 << (y % 8))
        if on { bytes[index] |= bit } else { bytes[index] &= ~bit }
    }

    /// A straight line including both ends (Bresenham).
    public mutating func drawLine(fromX x0: Int, y y0: Int, toX x1: Int, y y1: Int, on: Bool = true) {
        let dx = abs(x1 - x0), dy = -abs(y1 - y0)
        let sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1
        var x = x0, y = y0, error = dx + dy
        while true {
            setPixel(x: x, y: y, on: on)
            if x == x1 && y == y1 { break }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += sx }
            if doubled <= dx { error += dx; y += sy }
        }
    }

    /// A rectangle `width` × `height` pixels with its top-left corner at (x, y): its outline,
    /// or all of it when `filled`.
    public mutating func drawRect(x: Int, y: Int, width: Int, height: Int, filled: Bool = false, on: Bool = true) {
        guard width > 0, height > 0 else { return }
        if filled {
            for row in max(0, y) ..< min(self.height, y + height) {
                for column in max(0, x) ..< min(self.width, x + width) { setPixel(x: column, y: row, on: on) }
            }
            return
        }
        let right = x + width - 1, bottom = y + height - 1
        drawLine(fromX: x, y: y, toX: right, y: y, on: on)
        drawLine(fromX: x, y: bottom, toX: right, y: bottom, on: on)
        drawLine(fromX: x, y: y, toX: x, y: bottom, on: on)
        drawLine(fromX: right, y: y, toX: right, y: bottom, on: on)
    }

    /// Draws `text` in the built-in 5×7 font with its top-left corner at (x, y), each font
    /// pixel a `scale` × `scale` square; a character advances `BitmapFont.advance * scale`
    /// pixels and a newline starts a line `BitmapFont.lineHeight * scale` lower. Only the
    /// glyphs' pixels are set (to `on`): draw on a filled rectangle with `on: false` for
    /// inverted text. Returns the x just after the last character.
    @discardableResult
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int = 1, on: Bool = true) -> Int {
        let scale = max(1, scale)
        var cursorX = x, cursorY = y
        for character in text {
            if character == "\n" {
                cursorX = x
                cursorY += BitmapFont.lineHeight * scale
                continue
            }
            let columns = BitmapFont.columns(for: character)
            for (column, bits) in columns.enumerated() {
                for row in 0..<BitmapFont.glyphHeight where bits & (1 << row) != 0 {
                    let px = cursorX + column * scale, py = cursorY + row * scale
                    if scale == 1 {
                        setPixel(x: px, y: py, on: on)
                    } else {
                        drawRect(x: px, y: py, width: scale, height: scale, filled: true, on: on)
                    }
                }
            }
            cursorX += BitmapFont.advance * scale
        }
        return cursorX
    }

    /// The picture as text, one line per row, `#` for a lit pixel and `.` for a dark one.
    public func textArt() -> String {
        (0..<height).map { y in String((0..<width).map { pixel(x: $0, y: y) ? "#" : "." }) }.joined(separator: "\n")
    }
}
