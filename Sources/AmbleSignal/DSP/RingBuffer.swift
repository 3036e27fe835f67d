/// A fixed-capacity FIFO that overwrites its oldest element: storage is allocated once.
public struct RingBuffer<Element: Sendable>: Sendable {
    public let capacity: Int
    private var storage: [Element]
    private var next = 0
    /// Elements held, at most `capacity`.
    public private(set) var count = 0

    public init(capacity: Int, filling value: Element) {
        precondition(capacity > 0, "RingBuffer capacity must be positive")
        self.capacity = capacity
        storage = Array(repeating: value, count: capacity)
    }

    public mutating func append(_ value: Element) {
        storage[next] = value
        next = next + 1 == capacity ? 0 : next + 1
        if count < capacity { count += 1 }
    }

    /// Forgets the newest element; the one before it becomes the newest (an element already
    /// overwritten does not come back).
    public mutating func removeNewest() {
        guard count > 0 else { return }
        next = next == 0 ? capacity - 1 : next - 1
        count -= 1
    }

    public mutating func removeAll() {
        count = 0
        next = 0
    }

    /// The element `age` places back from the newest (0 = newest); `age < count`.
    public subscript(age age: Int) -> Element {
        precondition(age >= 0 && age < count, "RingBuffer age out of range")
        var i = next - 1 - age
        if i < 0 { i += capacity }
        return storage[i]
    }

    /// The storage slot of the element `age` places back from the newest; `age < count`. Slots
    /// run from older to newer elements, wrapping from `capacity - 1` to 0, so that a loop over
    /// a stretch can step through them without recomputing each position.
    public func slot(age: Int) -> Int {
        precondition(age >= 0 && age < count, "RingBuffer age out of range")
        let i = next - 1 - age
        return i < 0 ? i + capacity : i
    }

    /// The element in storage slot `slot` (`0 ..< capacity`, see `slot(age:)`).
    public subscript(slot slot: Int) -> Element { storage[slot] }

    /// Copies the newest `n` elements, oldest first, into `output[0..<n]`.
    public func copyNewest(_ n: Int, into output: inout [Element]) {
        precondition(n <= count && n <= output.count, "RingBuffer copy out of range")
        let start = next - n < 0 ? next - n + capacity : next - n
        let first = Swift.min(n, capacity - start)
        output.withUnsafeMutableBufferPointer { out in
            storage.withUnsafeBufferPointer { s in
                // At most two stretches: up to the end of the storage, then from its start.
                out.baseAddress!.update(from: s.baseAddress! + start, count: first)
                (out.baseAddress! + first).update(from: s.baseAddress!, count: n - first)
            }
        }
    }
}
