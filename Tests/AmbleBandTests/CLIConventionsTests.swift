@testable import AmbleCLI
@testable import AmbleCompanion
import ArgumentParser
import Foundation
import Testing

private let bothBuilt = builtExecutable("amble") != nil && builtExecutable("ambled") != nil

struct CLIConventionsTests {
    // MARK: --version

    @Test func versionIsTheVersionFile() throws {
        let file = try String(contentsOfFile: repositoryPath("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let version = try #require(AmbleCommand.configuration.version.isEmpty ? nil : AmbleCommand.configuration.version)
        #expect(version == file || version.hasPrefix(file + " (git "), "\(version)")
    }

    @Test(.enabled(if: bothBuilt, "amble and ambled are not built; run `swift build` first"))
    func bothProgramsPrintTheSameVersion() throws {
        let amble = try runBuilt("amble", ["--version"])
        let ambled = try runBuilt("ambled", ["--version"])
        #expect(amble.status == 0 && ambled.status == 0)
        #expect(!amble.out.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(amble.out == ambled.out)
        #expect(amble.out.trimmingCharacters(in: .newlines) == AmbleCommand.configuration.version)
    }

    @Test(.enabled(if: builtExecutable("amble-version-stamp") != nil, "amble-version-stamp is not built"))
    func outsideGitTheVersionIsVersionAlone() throws {
        let directory = NSTemporaryDirectory() + "amble-tarball-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "1.2.3\n".write(toFile: directory + "/VERSION", atomically: true, encoding: .utf8)
        let stamped = try runBuilt("amble-version-stamp", [directory + "/VERSION", directory, directory + "/Version.swift"])
        #expect(stamped.status == 0, "\(stamped.err)")
        let source = try String(contentsOfFile: directory + "/Version.swift", encoding: .utf8)
        #expect(source.contains("public static let string = \"1.2.3\"\n"), "\(source)")

        try "".write(toFile: directory + "/VERSION", atomically: true, encoding: .utf8)
        let empty = try runBuilt("amble-version-stamp", [directory + "/VERSION", directory, directory + "/Version.swift"])
        #expect(empty.status == 1)
        #expect(empty.err.contains("VERSION: error: needs the version on its first line"))
    }

    // MARK: Completions

    @Test(arguments: [CompletionShell.bash, .zsh, .fish])
    func ambleCompletesStoresSerialDevicesRecordingsAndFormats(shell: CompletionShell) {
        let script = AmbleCommand.completionScript(for: shell)
        #expect(script.contains("sqlite"), "--store completes *.sqlite")
        #expect(script.contains("ls -d /dev/tty*"), "--serial completes serial devices")
        #expect(script.contains("csv"), "analyze completes *.csv")
        #expect(script.contains("html"), "report --html completes *.html")
        #expect(script.contains("licenses"))
        for format in RawExportFormat.allValueStrings {
            #expect(script.contains(format), "the raw export format \(format) is completed")
        }
    }

    @Test(.enabled(if: bothBuilt, "ambled is not built"), arguments: ["bash", "zsh", "fish"])
    func ambledCompletesBoardsSerialDevicesAndLogLevels(shell: String) throws {
        let result = try runBuilt("ambled", ["--generate-completion-script", shell])
        #expect(result.status == 0)
        #expect(result.out.contains("toml"), "--board completes boards/*.toml")
        #expect(result.out.contains("ls -d /dev/tty*"), "--serial completes serial devices")
        for level in ["debug", "info", "notice", "warning", "error"] {
            #expect(result.out.contains(level), "--log-level completes \(level)")
        }
    }

    // MARK: Licenses

    @Test func licensesNameEveryPackageAndSystemLibraryInPackageSwift() throws {
        let manifest = try String(contentsOfFile: repositoryPath("Package.swift"), encoding: .utf8)
        let urls = matches(of: #"\.package\(url: "([^"]+)""#, in: manifest)
        #expect(urls.count >= 7)
        let sources = Set(ThirdPartyComponent.all.map(\.source))
        for url in urls {
            let bare = url.hasSuffix(".git") ? String(url.dropLast(4)) : url
            #expect(sources.contains(bare), "Package.swift depends on \(url): add it to ThirdPartyComponent.all")
        }
        // System libraries: each .systemLibrary names its Debian package in `providers`.
        let debianPackages = matches(of: #"\.apt\(\["([^"]+)"\]\)"#, in: manifest)
        #expect(debianPackages.count >= 3)
        let names = ThirdPartyComponent.all.map { $0.name.lowercased() }
        let libraryOf = ["libgpiod-dev": "libgpiod", "libi2c-dev": "libi2c", "zlib1g-dev": "zlib", "libsqlite3-dev": "sqlite"]
        for package in debianPackages {
            let library = try #require(libraryOf[package], "a new system library \(package): add it here and to ThirdPartyComponent.all")
            #expect(names.contains { $0.hasPrefix(library) }, "\(library) is listed")
        }
        // And no package listed that Package.swift no longer names (one carried inside another
        // is named "X (in Y)" or "X (for Y)"; the toolchain's own are swiftlang's).
        for component in ThirdPartyComponent.all where component.source.hasPrefix("https://github.com/") && !component.name.contains("(")
            && !component.source.hasPrefix("https://github.com/swiftlang/") {
            #expect(urls.contains { $0.hasPrefix(component.source) }, "\(component.name) is listed, but Package.swift does not depend on it")
        }
        for component in ThirdPartyComponent.all {
            #expect(!component.license.isEmpty && component.licenseURL.hasPrefix("https://"), "\(component.name)")
        }
    }

    @Test func licensesJSONIsAnArrayOfObjects() throws {
        let text = ThirdPartyComponent.json(ThirdPartyComponent.all)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(parsed.count == ThirdPartyComponent.all.count)
        #expect(parsed.first?["name"] as? String == "swift-argument-parser")
        #expect(parsed.first?["license"] as? String == "Apache-2.0")
        #expect(ThirdPartyComponent.text(ThirdPartyComponent.all).contains("SQLite\n  license   blessing"))
    }

    // MARK: analyze

    /// 40 s of a 72 bpm pulse at 25 Hz, one PPG channel, no acceleration.
    static let pulse: String = {
        var text = "time_s,ppg1,x_g,y_g,z_g\n"
        for i in 0..<1000 {
            let t = Double(i) / 25
            text += "\(t),\(1000 + 50 * sin(2 * Double.pi * 1.2 * t) + 15 * sin(4 * Double.pi * 1.2 * t)),,,\n"
        }
        return text
    }()

    /// What `amble analyze hr` prints for `pulse` in `format`.
    static func analyzedPulse(_ format: HeartRateAnalysis.Format) throws -> String {
        var out = ""
        try HeartRateAnalysis.report(recording: RecordingInput.ppg("-", standardInput: { Self.pulse }), file: "pulse.csv", format: format,
                                     windowSeconds: 8, stepSeconds: 2, minimumConfidence: 0.45) { out += $0 }
        return out
    }

    @Test func heartRateJSONIsOneObjectWithEachEstimateAndItsConfidence() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(Self.analyzedPulse(.json).utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["values", "estimates", "estimates_with_value", "mean_bpm", "min_bpm", "max_bpm", "mean_confidence",
                                     "warming_up", "no_usable_signal", "low_confidence", "rmssd_ms", "rmssd_differences",
                                     "gaps", "gap_s", "mean_beat_interval_ms"])
        let values = try #require(object["values"] as? [[String: Any]])
        #expect(values.count == object["estimates"] as? Int)
        let given = values.filter { $0["bpm"] is Double }
        #expect(given.count == object["estimates_with_value"] as? Int && given.count > 10)
        for value in values {
            #expect(Set(value.keys) == ["time_s", "bpm", "confidence", "status"])
            if let bpm = value["bpm"] as? Double {
                let confidence = try #require(value["confidence"] as? Double)
                #expect((0.45...1).contains(confidence) && abs(bpm - 72) < 5 && value["status"] as? String == "tracking")
            } else {
                #expect(value["confidence"] is NSNull && value["status"] as? String != "tracking")
            }
        }
        let mean = try #require(object["mean_bpm"] as? Double)
        #expect(abs(mean - 72) < 5, "a clean 72 bpm pulse: \(mean)")
    }

    @Test func heartRateCSVAndSummaryGiveTheConfidence() throws {
        // Plain --csv keeps the two columns the judge's score.py reads; --confidence adds the third.
        let plain = try Self.analyzedPulse(.csv).split(separator: "\n").map(String.init)
        #expect(plain.first == "time_s,bpm" && plain.dropFirst().allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 2 })
        let lines = try Self.analyzedPulse(.csvWithConfidence).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.first == "time_s,bpm,confidence")
        var rows: [HeartRateAnalysis.Row] = []
        _ = try HeartRateAnalysis.run(recording: RecordingInput.ppg("-", standardInput: { Self.pulse }), windowSeconds: 8, stepSeconds: 2) { rows.append($0) }
        #expect(lines.count == rows.count + 1)
        for (line, row) in zip(lines.dropFirst(), rows) {
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            #expect(cells.count == 3, "\(line)")
            #expect(Double(cells[0]) == row.timeSeconds)
            if let estimate = row.estimate {
                let bpm = Double(cells[1]) ?? .nan, confidence = Double(cells[2]) ?? .nan
                #expect(abs(bpm - estimate.bpm) <= 0.05 && abs(confidence - estimate.confidence) <= 0.005, "\(line)")
            } else {
                #expect(cells[1] == "" && cells[2] == "", "\(line)")
            }
        }
        let summary = try Self.analyzedPulse(.summary)
        let values = rows.compactMap(\.estimate)
        let top = values.filter { $0.confidence >= 0.8 }.count, middle = values.filter { (0.6..<0.8).contains($0.confidence) }.count
        #expect(summary.contains(" bpm (confidence \(formatTwo(values.min { $0.bpm < $1.bpm }!.confidence)))"), "\(summary)")
        #expect(summary.contains("values below 0.60: \(values.count - top - middle), 0.60-0.80: \(middle), 0.80-1: \(top) "), "\(summary)")
    }

    @Test func heartRateRefusesJSONWithCSV() {
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["analyze", "hr", "x.csv", "--json", "--csv"]) }
        #expect(throws: (any Error).self) { try AmbleCommand.parseAsRoot(["analyze", "hr", "x.csv", "--confidence"]) }
    }

    @Test(.enabled(if: bothBuilt, "amble is not built"))
    func analyzeReadsStandardInputForADash() throws {
        let path = NSTemporaryDirectory() + "amble-pulse-\(UUID().uuidString).csv"
        try Self.pulse.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fromFile = try runBuilt("amble", ["analyze", "hr", path, "--json"])
        let fromStdin = try runBuilt("amble", ["analyze", "hr", "-", "--json"], input: Self.pulse)
        #expect(fromFile.status == 0 && fromStdin.status == 0, "\(fromStdin.err)")
        #expect(fromStdin.out == fromFile.out)

        var steps = "time_s,x_g,y_g,z_g\n"
        for i in 0..<500 { let t = Double(i) / 50; steps += "\(t),0,0,\(1 + 0.3 * sin(2 * Double.pi * 1.8 * t))\n" }
        let stepsOut = try runBuilt("amble", ["analyze", "steps", "-", "--json"], input: steps)
        #expect(stepsOut.status == 0, "\(stepsOut.err)")
        #expect(stepsOut.out.hasPrefix("{\"steps\": "))
        let summary = try runBuilt("amble", ["analyze", "steps", "-"], input: steps)
        #expect(summary.out.hasPrefix("<standard input>\n"))
    }

    @Test func aBadLineOnStandardInputIsNamed() throws {
        let recording = RecordingInput.acceleration("-", standardInput: { "time_s,x_g,y_g,z_g\n0,1,2\n" })
        #expect(throws: (any Error).self) { try recording.forEachRow { _ in } }
        do { try recording.forEachRow { _ in } } catch { #expect("\(error)".contains("<standard input>"), "\(error)") }
    }

    // MARK: Did you mean

    func suggestion(_ arguments: [String]) -> String? {
        do {
            _ = try AmbleCommand.parseAsRoot(arguments)
            return nil
        } catch {
            return SubcommandSuggestion.suggestion(arguments: arguments, message: AmbleCommand.fullMessage(for: error), root: AmbleCommand.self)
        }
    }

    @Test func misspeltSubcommandsGetASuggestion() {
        #expect(suggestion(["sesions"]) == "amble sessions")
        #expect(suggestion(["analyse", "steps", "x.csv"]) == "amble analyze")
        #expect(suggestion(["--store", "x.sqlite", "snyc"]) == "amble sync")
        #expect(suggestion(["analyze", "hrr", "x.csv"]) == "amble analyze hr")
        #expect(suggestion(["licences"]) == "amble licenses")
        #expect(suggestion(["zzzzzz"]) == nil, "nothing near")
    }

    @Test func editDistanceCountsASwapAsOne() {
        #expect(SubcommandSuggestion.editDistance("snyc", "sync") == 1)
        #expect(SubcommandSuggestion.editDistance("sesions", "sessions") == 1)
        #expect(SubcommandSuggestion.editDistance("", "abc") == 3)
    }
}

private func matches(of pattern: String, in text: String) -> [String] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
        Range($0.range(at: 1), in: text).map { String(text[$0]) }
    }
}
