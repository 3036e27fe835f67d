/// A fixed-capacity FIFO that overwrites its oldest element: storage is allocated once.
///
/// Inlinable, so that a module using it (the band's `AccelerationHistory`) gets code for its
/// own element type: the generic code it would call otherwise looks up the type's metadata
/// and copies through value witnesses, about 400 instructions for an append (instead of 10).
public struct RingBuffer<Element: Sendable>: Sendable {
    public let capacity: Int
    @usableFromInline var storage: [Element]
    @usableFromInline var next = 0
    @usableFromInline var held = 0
    /// Elements held, at most `capacity`.
    @inlinable public var count: Int { held }

    public init(capacity: Int, filling value: Element) {
        precondition(capacity > 0, "RingBuffer capacity must be positive")
        self.capacity = capacity
        storage = Array(repeating: value, count: capacity)
    }

    @inlinable
    public mutating func append(_ value: Element) {
        storage[next] = value
        next = next + 1 == capacity ? 0 : next + 1
        if held < capacity { held += 1 }
    }

    /// Forgets the newest element; the one before it becomes the newest (an element already
    /// overwritten does not come back).
    @inlinable
    public mutating func removeNewest() {
        guard held > 0 else { return }
        next = next == 0 ? capacity - 1 : next - 1
        held -= 1
    }

    @inlinable
    public mutating func removeAll() {
        held = 0
        next = 0
    }

    /// The element `age` places back from the newest (0 = newest); `age < count`.
    @inlinable
    public subscript(age age: Int) -> Element {
        precondition(age >= 0 && age < count, "RingBuffer age out of range")
        var i = next - 1 - age
        if i < 0 { i += capacity }
        return storage[i]
    }

    /// The storage slot of the element `age` places back from the newest; `age < count`. Slots
    /// run from older to newer elements, wrapping from `capacity - 1` to 0, so that a loop over
    /// a stretch can step through them without recomputing each position.
    @inlinable
    public func slot(age: Int) -> Int {
        precondition(age >= 0 && age < count, "RingBuffer age out of range")
        let i = next - 1 - age
        return i < 0 ? i + capacity : i
    }

    /// The element in storage slot `slot` (`0 ..< capacity`, see `slot(age:)`).
    @inlinable
    public subscript(slot slot: Int) -> Element { storage[slot] }

    /// Copies the newest `n` elements, oldest first, into `output[0..<n]`.
    @inlinable
    public func copyNewest(_ n: Int, into output: inout [Element]) {
        precondition(n <= count && n <= output.count, "RingBuffer copy out of range")
        let start = next - n < 0 ? next - n + capacity : next - n
        let first = Swift.min(n, capacity - start)
        output.withUnsafeMutableBufferPointer { out in
            storage.withUnsafeBufferPointer { s in
                // At most two stretches: up to the end of the storage, then from its start.
                #if hasFeature(Embedded)
                // Embedded Swift (the cost on the band's processor, scripts/bench-pipeline-aarch64)
                // makes `update(from:count:)` a call per element; the ordinary build, a memcpy.
                for i in 0 ..< first { out[i] = s[start &+ i] }
                for i in first ..< n { out[i] = s[i &- first] }
                #else
                out.baseAddress!.update(from: s.baseAddress! + start, count: first)
                (out.baseAddress! + first).update(from: s.baseAddress!, count: n - first)
                #endif
            }
        }
    }
}
