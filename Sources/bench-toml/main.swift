import AmbleBoard
import AmbleLinux
import AmbleTOML

/// The cost of reading TOML files (scripts/bench-toml): each file read `--repeat` times, a board
/// file (a path ending in .toml under boards/) as the band reads it (AmbleTOML and the board's
/// checks), any other as TOML alone. Only `measuredReads` is counted under callgrind.
///
///   bench-toml [--repeat N] FILE...
@inline(never)
func measuredReads(_ text: String, file: String, times: Int) -> Int {
    var keys = 0
    for _ in 0..<times {
        if file.contains("boards/") {
            keys += (try? BoardFile.parse(text: text, file: file))?.buttons.count ?? -1
        } else {
            keys += (try? TOMLReader().read(text))?.count ?? -1
        }
    }
    return keys
}

var arguments = Array(CommandLine.arguments.dropFirst())
var times = 100
if arguments.first == "--repeat", arguments.count >= 2, let n = Int(arguments[1]) {
    times = n
    arguments.removeFirst(2)
}
for path in arguments {
    guard let bytes = try? readWholeFile(atPath: path, limitBytes: 1 << 20), let text = String(validating: bytes, as: UTF8.self) else {
        print("\(path): cannot be read as UTF-8 text")
        continue
    }
    let keys = measuredReads(text, file: path, times: times)
    print("\(path) bytes=\(bytes.count) reads=\(times) check=\(keys / times)")
}
