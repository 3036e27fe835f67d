#if canImport(Glibc)
import Glibc
#endif
import AmbleHardware

/// An expectation that did not hold, saying what came instead of what was expected.
struct CheckFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs named checks one after another, prints `PASS name` or `FAIL name: detail` for each
/// and counts them. A check is a closure that throws when an expectation fails; any error it
/// throws (a Linux-layer error included) fails it with the error's description.
final class HILRun {
    private(set) var passed = 0
    private(set) var failed = 0

    func check(_ name: String, _ body: () throws -> Void) {
        do {
            try body()
            passed += 1
            emit("PASS \(name)")
        } catch {
            failed += 1
            emit("FAIL \(name): \(error)")
        }
    }

    /// A note that is not a check (what was found, why something is not checked).
    func note(_ text: String) {
        emit("NOTE \(text)")
    }

    var summary: String { "HIL: \(passed) passed, \(failed) failed" }

    func emit(_ line: String) {
        print(line)
        fflush(nil)
    }
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw CheckFailure(message()) }
}

func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
    if actual != expected { throw CheckFailure("\(what): got \(actual), expected \(expected)") }
}

func expectEqual(_ actual: UInt8, _ expected: UInt8, _ what: String) throws {
    if actual != expected { throw CheckFailure("\(what): got \(hex(actual)), expected \(hex(expected))") }
}

func expectEqual(_ actual: [UInt8], _ expected: [UInt8], _ what: String) throws {
    if actual != expected { throw CheckFailure("\(what): got \(hexBytes(actual)), expected \(hexBytes(expected))") }
}

/// Runs `body`, which must throw an error of type `E`, and returns that error.
func expectThrows<E: Error>(_ type: E.Type, _ what: String, _ body: () throws -> Void) throws -> E {
    do {
        try body()
    } catch let error as E {
        return error
    } catch {
        throw CheckFailure("\(what): threw \(error) (a \(Swift.type(of: error))), expected a \(E.self)")
    }
    throw CheckFailure("\(what): did not fail")
}

func hexBytes(_ bytes: [UInt8]) -> String {
    "[" + bytes.map(hex).joined(separator: " ") + "]"
}
