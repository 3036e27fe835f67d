#if canImport(Glibc)
import Glibc
#endif
import AmbleLinux
import Testing

struct ServiceLogFormatTests {
    @Test(arguments: [
        (LogSeverity.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func severityIsTheSyslogPriority(severity: LogSeverity, priority: Int) {
        #expect(severity.syslogPriority == priority)
    }

    @Test func journalLinesCarryThePriorityAndNoTime() {
        let text = ServiceLogStyle.journal.format(
            severity: .error, label: "ambled", message: "accelerometer: no answer at 0x18 on /dev/i2c-1",
            timestamp: "2026-01-05 14:03:07.250"
        )
        #expect(text == "<3>ambled: accelerometer: no answer at 0x18 on /dev/i2c-1\n")
    }

    @Test func readableLinesCarryTimeAndLevel() {
        let text = ServiceLogStyle.readable.format(
            severity: .warning, label: "ambled", message: "heart rate: signal lost", timestamp: "2026-01-05 14:03:07.250"
        )
        #expect(text == "2026-01-05 14:03:07.250 warning ambled: heart rate: signal lost\n")
    }

    @Test func everyLineOfAMessageIsPrefixed() {
        let message = "session 12 closed after a restart\n  steps 840\r\n  gap 31 s\n"
        #expect(ServiceLogStyle.journal.format(severity: .notice, label: "ambled", message: message, timestamp: "") == """
            <5>ambled: session 12 closed after a restart
            <5>ambled:   steps 840
            <5>ambled:   gap 31 s

            """)
        #expect(ServiceLogStyle.readable.format(severity: .info, label: "ambled", message: "a\nb", timestamp: "T") == "T info ambled: a\nT info ambled: b\n")
    }

    @Test func metadataGoesAtTheEndSortedByKey() {
        let text = ServiceLogStyle.journal.format(
            severity: .info, label: "ambled", message: "synced\nto laptop", metadata: ["peer": "127.0.0.1:5000", "bytes": "1024"], timestamp: ""
        )
        #expect(text == "<6>ambled: synced\n<6>ambled: to laptop bytes=1024 peer=127.0.0.1:5000\n")
    }

    @Test func anEmptyMessageIsOneLine() {
        #expect(ServiceLogStyle.journal.format(severity: .debug, label: "ambled", message: "", timestamp: "") == "<7>ambled: \n")
    }

    @Test func journalOnlyWhenTheStreamIsStandardErrorItself() {
        let stderr = FileIdentity(device: 25, inode: 123_456)
        #expect(ServiceLogStyle.deciding(journalStream: "25:123456", standardError: stderr) == .journal)
        #expect(ServiceLogStyle.deciding(journalStream: "25:123457", standardError: stderr) == .readable, "another inode")
        #expect(ServiceLogStyle.deciding(journalStream: "26:123456", standardError: stderr) == .readable, "another device")
        #expect(ServiceLogStyle.deciding(journalStream: nil, standardError: stderr) == .readable)
        #expect(ServiceLogStyle.deciding(journalStream: "25:123456", standardError: nil) == .readable)
        for malformed in ["", "25", "25:", ":123456", "25:123456:1", "0x19:123456", "25 :123456"] {
            #expect(ServiceLogStyle.deciding(journalStream: malformed, standardError: stderr) == .readable, "\(malformed)")
        }
        #expect(FileIdentity(journalStream: "18446744073709551615:1") == FileIdentity(device: .max, inode: 1))
    }

    @Test func fileIdentityTellsTwoFilesApartAndOneFileFromTwoDescriptors() throws {
        var template = Array("/tmp/amble-journal-XXXXXX".utf8CString)
        let first = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        try #require(first >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let again = open(path, O_RDONLY)
        var pipeEnds: [Int32] = [-1, -1]
        try #require(pipe(&pipeEnds) == 0)
        defer { for fd in [first, again] + pipeEnds { close(fd) } }

        let identity = try #require(fileIdentity(ofDescriptor: first))
        #expect(fileIdentity(ofDescriptor: again) == identity)
        #expect(fileIdentity(ofDescriptor: pipeEnds[1]) != identity)
        #expect(fileIdentity(ofDescriptor: -1) == nil)
        let stream = "\(identity.device):\(identity.inode)"
        #expect(ServiceLogStyle.deciding(journalStream: stream, standardError: fileIdentity(ofDescriptor: again)) == .journal)
        #expect(ServiceLogStyle.deciding(journalStream: stream, standardError: fileIdentity(ofDescriptor: pipeEnds[1])) == .readable)
    }

    @Test func standardErrorIsNotTheJournalWhenTheStreamNamesAnotherFile() {
        #expect(standardErrorLogStyle(environment: [:]) == .readable)
        #expect(standardErrorLogStyle(environment: ["JOURNAL_STREAM": "0:0"]) == .readable)
        if let identity = fileIdentity(ofDescriptor: STDERR_FILENO) {
            #expect(standardErrorLogStyle(environment: ["JOURNAL_STREAM": "\(identity.device):\(identity.inode)"]) == .journal)
        }
    }

    @Test func localTimestampHasItsShape() {
        let text = Array(localTimestamp())
        #expect(text.count == 23, "\(String(text))")
        for (index, character) in text.enumerated() {
            switch index {
            case 4, 7: #expect(character == "-")
            case 10: #expect(character == " ")
            case 13, 16: #expect(character == ":")
            case 19: #expect(character == ".")
            default: #expect(character.isASCII && character.isNumber, "\(String(text))")
            }
        }
    }
}

struct ProcessContextTests {
    @Test func environmentHoldsWhatGetenvSees() {
        setenv("AMBLE_TEST_VALUE", "a=b", 1)
        defer { unsetenv("AMBLE_TEST_VALUE") }
        #expect(processEnvironment()["AMBLE_TEST_VALUE"] == "a=b")
    }

    @Test func executableAndCurrentDirectoryAreAbsolute() throws {
        let executable = try #require(currentExecutablePath())
        #expect(executable.hasPrefix("/"))
        #expect(somethingMayBeAt(executable))
        let directory = try #require(currentDirectoryPath())
        #expect(directory.hasPrefix("/"))
        #expect(somethingMayBeAt(directory), "a folder is there (and is reported when a file is wanted)")
        #expect(!somethingMayBeAt(directory + "/no such file"))
        #expect(!somethingMayBeAt(executable + "/board.toml"), "a file on the way")
    }
}
