import AmbleFuzzTargets
#if AMBLE_FUZZ
import CLibFuzzer
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Writes to standard error (Glibc's `stderr` is a mutable global Swift 6 will not touch).
func complain(_ text: String) {
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

#if AMBLE_FUZZ
/// libFuzzer's entry (built by scripts/fuzz with `-sanitize=fuzzer -DAMBLE_FUZZ`): the target
/// named by AMBLE_FUZZ_TARGET gets each input.
let selectedTarget: FuzzTarget = {
    let name = getenv("AMBLE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        complain("amble-fuzz: set AMBLE_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n")
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// The process's entry: SwiftPM points `main` at `amble_fuzz_main`, which hands the
/// command line to libFuzzer's driver (its options: -runs=N, -max_total_time=S, corpus folders).
@_cdecl("amble_fuzz_main")
public func ambleFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        fuzzOneInput(data, size)
    }
}
#else
/// Without the fuzzer: `amble-fuzz TARGET FILE...` runs the target on each file once (to
/// replay a crash under a debugger).
@main
struct Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--write-seeds", arguments.count == 2 {
            for target in FuzzTarget.allCases {
                let folder = arguments[1] + "/" + target.rawValue
                mkdir(arguments[1], 0o755)
                mkdir(folder, 0o755)
                for (index, seed) in target.seeds.enumerated() {
                    guard let file = fopen(folder + "/seed-\(index)", "wb") else { complain("cannot write in \(folder)\n"); exit(1) }
                    _ = seed.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
                    fclose(file)
                }
                print("\(folder): \(target.seeds.count) seeds")
            }
            return
        }
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            complain("usage: amble-fuzz TARGET FILE...   (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))\n")
            exit(2)
        }
        for path in arguments.dropFirst() {
            guard let file = fopen(path, "rb") else {
                complain("amble-fuzz: cannot read \(path)\n")
                exit(1)
            }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = fread(&buffer, 1, buffer.count, file)
                if count <= 0 { break }
                bytes += buffer[..<count]
            }
            fclose(file)
            target.run(bytes)
            print("\(path): ran \(target.rawValue), \(bytes.count) bytes")
        }
    }
}
#endif
