import AmbleHardware
import AmbleModel
@testable import AmbleSync
import Testing

/// The link's protocol, driven frame by frame and byte by byte against the band's
/// `BandLinkConnection`, with the laptop's `CompanionLink` or hand-made frames.
final class BandLinkTests {
    let clock = ManualClock(startSeconds: 0)
    /// The connections hold their hosts unowned, as the band's service does.
    var retainedHosts: [TestBandHost] = []

    /// The frames in bytes the band wrote.
    func frames(_ bytes: some Collection<UInt8>) -> [(kind: UInt8, payload: [UInt8])] {
        var decoder = FrameDecoder()
        return decoder.feed(Array(bytes)).compactMap { if case .frame(let k, let p) = $0 { return (k, p) } else { return nil } }
    }

    /// The first message of an IK handshake from `laptop` to `bandKey`, framed, and the
    /// handshake to read the band's answer with.
    func connectFrame(from laptop: NoiseKeyPair, to bandKey: [UInt8]) throws -> (frame: [UInt8], handshake: NoiseHandshakeState) {
        var handshake = try NoiseHandshakeState(pattern: .ik, role: .initiator, prologue: BandLinkConnection.prologue,
                                                localStaticKey: laptop, remoteStaticKey: bandKey)
        return (Framing.frame(.connect, try handshake.writeMessage(payload: []).message), handshake)
    }

    /// A band connection with a paired laptop's handshake done by hand, and the laptop's channel.
    func securedBand() throws -> (BandLinkConnection, SecureChannel) {
        let host = TestBandHost()
        let laptop = NoiseKeyPair.generate()
        host.paired.append(laptop.publicKey)
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        var (frame, handshake) = try connectFrame(from: laptop, to: host.staticKeyPair.publicKey)
        band.receive(frame, now: 0)
        let channel = SecureChannel(try #require(try handshake.readMessage(frames(band.output)[0].payload).transport))
        band.wrote(band.output.count)
        retainedHosts.append(host)
        return (band, channel)
    }

    func refusal(_ connection: BandLinkConnection) -> Refusal? {
        let out = frames(connection.output)
        guard out.count == 1, out[0].kind == FrameKind.refusal.rawValue else { return nil }
        return Refusal(payload: out[0].payload)
    }

    /// A laptop paired with `host`, connected over a pumped stream.
    func connectedLaptop(_ host: TestBandHost, resendSeconds: Double = 3) throws -> (CompanionLink, PumpedStream) {
        let laptop = NoiseKeyPair.generate()
        host.paired.append(laptop.publicKey)
        let band = BandLinkConnection(id: 1, host: host, now: clock.nowSeconds)
        let stream = PumpedStream(band: band, clock: clock)
        let link = CompanionLink(stream: stream, laptopKeyPair: laptop, clock: clock, timeoutSeconds: 15, resendSeconds: resendSeconds)
        try link.connect(bandPublicKey: host.staticKeyPair.publicKey)
        return (link, stream)
    }

    // MARK: Before the handshake

    @Test func nothingButTheHandshakeIsAnswered() throws {
        let host = TestBandHost()
        for kind in [FrameKind.secure, .refusal] {
            let band = BandLinkConnection(id: 1, host: host, now: 0)
            band.receive(Framing.frame(kind, Array(repeating: 7, count: 40)), now: 0)
            if kind == .refusal {
                #expect(band.isFinished && band.output.isEmpty, "a laptop's refusal ends the connection without a word")
            } else {
                #expect(refusal(band)?.code == .badRequest)
                #expect(band.isFinished)
            }
        }
        // A frame of a kind that does not exist.
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        var bytes = Framing.frame(.secure, [1, 2, 3])
        bytes[3] = 0x7E
        let check = Framing.headerCheck(bytes[0 ..< 6])
        bytes[6] = UInt8(check >> 8); bytes[7] = UInt8(check & 0xFF)
        band.receive(bytes, now: 0)
        #expect(refusal(band)?.code == .badRequest)
    }

    @Test func pairingOutsidePairingModeIsRefused() throws {
        let host = TestBandHost()
        host.pairingOpen = nil
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        let stream = PumpedStream(band: band, clock: clock)
        let link = CompanionLink(stream: stream, laptopKeyPair: .generate(), clock: clock)
        #expect {
            _ = try link.pair(laptopName: "laptop", confirm: { _ in true })
        } throws: { error in
            guard case SyncError.refused(_, let refusal) = error else { return false }
            return refusal.code == .notInPairingMode
        }
        #expect(host.began.isEmpty)
    }

    @Test func anUnpairedLaptopGetsARefusalAndNothingElse() throws {
        let host = TestBandHost()
        host.add(testRecord(seconds: 60))
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        band.receive(try connectFrame(from: .generate(), to: host.staticKeyPair.publicKey).frame, now: 0)
        #expect(refusal(band)?.code == .notPaired)
        #expect(band.isFinished)
        // Whatever it sends next is not read.
        band.wrote(band.output.count)
        #expect(!band.wantsInput)
    }

    @Test func aLaptopHoldingAnotherKeyForTheBandIsRefused() throws {
        let host = TestBandHost()
        let laptop = NoiseKeyPair.generate()
        host.paired.append(laptop.publicKey)
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        band.receive(try connectFrame(from: laptop, to: NoiseKeyPair.generate().publicKey).frame, now: 0)
        #expect(refusal(band)?.code == .handshakeFailed)
    }

    @Test func anOldCompanionHearsWhyInsteadOfSilence() throws {
        let host = TestBandHost()
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        // A version-1 frame header: "AM", 1, u32 length, check over the first seven bytes.
        var v1: [UInt8] = [0x41, 0x4D, 1, 0, 0, 0, 2]
        let check = UInt16(truncatingIfNeeded: CRC32.checksum(v1))
        v1 += [UInt8(check >> 8), UInt8(check & 0xFF), 0x7B, 0x7D, 0, 0, 0, 0]
        band.receive(v1, now: 0)
        // Answered in version 1's framing and JSON, which an old amble prints.
        let answer = Array(band.output)
        #expect(Array(answer.prefix(3)) == [0x41, 0x4D, 1])
        let json = String(decoding: answer.dropFirst(9).dropLast(4), as: UTF8.self)
        #expect(json.hasPrefix(#"{"failure":{"code":"unsupported-version","message":"this band speaks sync protocol 2"#))
        #expect(band.isFinished)
    }

    // MARK: Pairing

    @Test func pairingShowsTheSameCodesOnBothSidesAndNeedsBothYeses() throws {
        for (laptopSays, wearerSays) in [(true, true), (true, false), (false, true)] {
            let host = TestBandHost()
            host.wearerAccepts = wearerSays
            let band = BandLinkConnection(id: 1, host: host, now: 0)
            let stream = PumpedStream(band: band, clock: clock)
            let laptop = NoiseKeyPair.generate()
            let link = CompanionLink(stream: stream, laptopKeyPair: laptop, clock: clock)
            var offered: PairingOffer?
            let outcome = Result { try link.pair(laptopName: "laptop", confirm: { offered = $0; return laptopSays }) }
            let codes = try #require(host.began.first?.codes)
            #expect(offered?.codes == codes, "band and laptop derive the same codes")
            #expect(offered?.method == .comparison)
            if laptopSays && wearerSays {
                let paired = try outcome.get()
                #expect(paired.bandPublicKey == host.staticKeyPair.publicKey)
                #expect(host.paired == [laptop.publicKey])
            } else {
                #expect(throws: SyncError.self) { try outcome.get() }
                #expect(host.paired.isEmpty, "a no from either side stores nothing")
            }
        }
    }

    @Test func aMachineInTheMiddleRelayingEverythingEndsUpWithDifferentCodes() throws {
        // laptop <-> MITM <-> band: the MITM runs one handshake with each side and forwards every
        // payload (the band's commitment, the laptop's nonce and name, the band's reveal), so
        // the laptop's commitment check passes; only the handshake hashes differ.
        let host = TestBandHost()
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        let laptop = NoiseKeyPair.generate(), mitm = NoiseKeyPair.generate()
        var laptopSide = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: laptop)
        var mitmFacingLaptop = try NoiseHandshakeState(pattern: .xx, role: .responder, prologue: BandLinkConnection.prologue, localStaticKey: mitm)
        var mitmFacingBand = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: mitm)

        _ = try mitmFacingLaptop.readMessage(try laptopSide.writeMessage(payload: []).message)
        band.receive(Framing.frame(.pair, try mitmFacingBand.writeMessage(payload: []).message), now: 0)
        let fromBand = try mitmFacingBand.readMessage(frames(band.output)[0].payload)
        band.wrote(band.output.count)
        let toLaptop = try mitmFacingLaptop.writeMessage(payload: fromBand.payload)
        let atLaptop = try laptopSide.readMessage(toLaptop.message)

        let laptopNonce = PairingCodes.makeNonce()
        var third = BinaryWriter()
        third.raw(laptopNonce)
        third.string("laptop")
        let fromLaptop = try laptopSide.writeMessage(payload: third.bytes)
        let atMitm = try mitmFacingLaptop.readMessage(fromLaptop.message)
        let toBand = try mitmFacingBand.writeMessage(payload: atMitm.payload)
        band.receive(Framing.frame(.pair, toBand.message), now: 0)

        var bandChannel = SecureChannel(try #require(toBand.transport))
        let reveal = try SyncMessage.decode(try bandChannel.open(frames(band.output)[0].payload)).message
        var laptopFacing = SecureChannel(try #require(atMitm.transport))
        let forwarded = try laptopFacing.seal(reveal.encoded(number: 0))
        let laptopTransport = try #require(fromLaptop.transport)
        var laptopChannel = SecureChannel(laptopTransport)
        guard case .pairingReveal(let bandNonce, _, _) = try SyncMessage.decode(try laptopChannel.open(forwarded)).message else {
            Issue.record("no reveal")
            return
        }
        let laptopCodes = try PairingCodes(handshakeHash: laptopTransport.handshakeHash, initiatorNonce: laptopNonce,
                                           responderNonce: bandNonce, responderCommitment: Array(atLaptop.payload.prefix(PairingCodes.nonceLength)))
        let bandCodes = try #require(host.began.first?.codes)
        #expect(laptopTransport.handshakeHash != bandChannel.handshakeHash)
        #expect(laptopCodes.comparisonCode != bandCodes.comparisonCode, "equal by chance once in a million")
        #expect(host.paired.isEmpty)
    }

    // MARK: After the handshake

    @Test func replayedReorderedAndTamperedFramesAreRefused() throws {
        for attack in ["replay", "reorder", "tamper"] {
            var (band, channel) = try securedBand()
            let first = try channel.seal(SyncMessage.getSettings.encoded(number: 1))
            let second = try channel.seal(SyncMessage.getSettings.encoded(number: 2))
            let third = try channel.seal(SyncMessage.getSettings.encoded(number: 3))
            switch attack {
            case "replay":
                band.receive(Framing.frame(.secure, first), now: 1); band.wrote(band.output.count)
                band.receive(Framing.frame(.secure, second), now: 1); band.wrote(band.output.count)
                band.receive(Framing.frame(.secure, first), now: 1)   // an old frame, not the last
            case "reorder":
                band.receive(Framing.frame(.secure, first), now: 1); band.wrote(band.output.count)
                band.receive(Framing.frame(.secure, third), now: 1)
            default:
                var tampered = first
                tampered[12] ^= 0x01
                band.receive(Framing.frame(.secure, tampered), now: 1)
            }
            #expect(refusal(band)?.code == .badFrame, "\(attack)")
            #expect(band.isFinished, "\(attack)")
        }
    }

    @Test func aRequestSentAgainGetsTheSameAnswerBytes() throws {
        var (band, channel) = try securedBand()
        let request = Framing.frame(.secure, try channel.seal(SyncMessage.getSettings.encoded(number: 1)))
        band.receive(request, now: 1)
        let answer = Array(band.output)
        band.wrote(answer.count)
        band.receive(request, now: 2)
        #expect(Array(band.output) == answer)
        #expect(band.resentAnswers == 1)
        #expect(!band.isFinished)
    }

    @Test func oneRequestIsInFlightAtATime() throws {
        var (band, channel) = try securedBand()
        var both: [UInt8] = []
        for n in 1 ... 2 { both += Framing.frame(.secure, try channel.seal(SyncMessage.getSettings.encoded(number: UInt32(n)))) }
        band.receive(both, now: 1)
        #expect(frames(band.output).count == 1, "the second waits until the first answer is written")
        #expect(!band.wantsInput)
        band.wrote(band.output.count)
        band.tick(now: 1)
        #expect(frames(band.output).count == 1)
    }

    @Test func aFloodOfBytesNeverGrowsTheConnection() throws {
        let host = TestBandHost()
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        var generator = SplitMix64(seed: 5)
        var offered = 0
        var now = 0.0
        while offered < 4 << 20 && !band.isFinished {
            let room = band.freeInputCapacity
            if room == 0 { band.wrote(band.output.count); band.tick(now: now); if band.freeInputCapacity == 0 { break }; continue }
            let chunk = (0 ..< min(room, 4096)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            band.receive(chunk, now: now)
            offered += chunk.count
            now += 0.001
            #expect(band.output.count <= Framing.maximumFrameLength)
        }
        // Four megabytes of noise never made a frame; the handshake timeout ends the connection.
        band.tick(now: now + 11)
        #expect(band.isFinished)
        #expect(band.discardedBytes > 0)
    }

    @Test func aStalledPartialFrameIsDroppedAndTheLinkRecovers() throws {
        let host = TestBandHost()
        let laptop = NoiseKeyPair.generate()
        host.paired.append(laptop.publicKey)
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        // A header declaring the longest payload, then nothing.
        var header: [UInt8] = [0x41, 0x4D, Framing.version, FrameKind.connect.rawValue, 0x40, 0x00]
        let check = Framing.headerCheck(header[...])
        header += [UInt8(check >> 8), UInt8(check & 0xFF)]
        band.receive(header, now: 0)
        band.tick(now: 6)
        #expect(band.discardedBytes == header.count)
        band.receive(try connectFrame(from: laptop, to: host.staticKeyPair.publicKey).frame, now: 6)
        #expect(frames(band.output).first?.kind == FrameKind.connect.rawValue)
    }

    @Test func anIdleConnectionEndsWithAReason() throws {
        let host = TestBandHost()
        let (link, stream) = try connectedLaptop(host)
        try link.hello()
        stream.band.tick(now: clock.nowSeconds + 61)
        #expect(stream.band.isFinished)
        #expect(refusal(stream.band)?.code == .timedOut)
    }

    @Test func aReplayedHandshakeThatNeverSpeaksIsClosedSoon() throws {
        // A recorded IK message 1 of a paired laptop completes a handshake, but its sender has
        // no keys to speak with: the connection counts as unproven and ends after 10 s.
        let host = TestBandHost()
        let laptop = NoiseKeyPair.generate()
        host.paired.append(laptop.publicKey)
        let recorded = try connectFrame(from: laptop, to: host.staticKeyPair.publicKey).frame
        let band = BandLinkConnection(id: 1, host: host, now: 0)
        band.receive(recorded, now: 0)
        band.wrote(band.output.count)
        #expect(band.isSecure && band.isUnproven)
        band.tick(now: 11)
        #expect(refusal(band)?.code == .timedOut)
    }

    /// A connection left mid-sync (after hello) or mid-pairing (after XX message 1) by a
    /// laptop that went away without its goodbye.
    func abandonedConnection(_ host: TestBandHost, _ laptop: NoiseKeyPair, pairing: Bool, limits: BandLinkLimits) throws -> BandLinkConnection {
        let band = BandLinkConnection(id: 1, host: host, limits: limits, now: 0)
        if pairing {
            var handshake = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: laptop)
            band.receive(Framing.frame(.pair, try handshake.writeMessage(payload: []).message), now: 0)
            band.wrote(band.output.count)
        } else {
            let link = CompanionLink(stream: PumpedStream(band: band, clock: clock), laptopKeyPair: laptop, clock: clock)
            try link.connect(bandPublicKey: host.staticKeyPair.publicKey)
            try link.hello()
        }
        #expect(!band.isFinished && band.output.isEmpty)
        return band
    }

    @Test func aNewHandshakeOnASerialLineReplacesTheConnectionLeftBehind() throws {
        // Ctrl-C or a crash on the laptop: no goodbye, and the same laptop connects again at
        // once on the same line. Over TCP a laptop opens a new connection instead.
        for serial in [true, false] {
            for (pairing, newKind) in [(false, FrameKind.connect), (false, .pair), (true, .connect), (true, .pair)] {
                let host = TestBandHost()
                let laptop = NoiseKeyPair.generate()
                host.paired.append(laptop.publicKey)
                let limits: BandLinkLimits = serial ? .serial(baudRate: 115_200) : .init()
                let old = try abandonedConnection(host, laptop, pairing: pairing, limits: limits)
                var handshake: NoiseHandshakeState
                let first: [UInt8]
                if newKind == .connect {
                    (first, handshake) = try connectFrame(from: laptop, to: host.staticKeyPair.publicKey)
                } else {
                    handshake = try NoiseHandshakeState(pattern: .xx, role: .initiator, prologue: BandLinkConnection.prologue, localStaticKey: laptop)
                    first = Framing.frame(.pair, try handshake.writeMessage(payload: []).message)
                }
                old.receive(first, now: 1)
                let what = "serial \(serial), pairing \(pairing), then \(newKind)"
                guard serial else {
                    #expect(refusal(old)?.code == (pairing && newKind == .pair ? .handshakeFailed : .badRequest), "\(what)")
                    continue
                }
                #expect(old.isFinished && old.output.isEmpty, "ended without a frame the new laptop would take as a refusal: \(what)")
                let fresh = BandLinkConnection(id: 2, host: host, limits: limits, now: 1)
                fresh.receive(old.takeUnreadInput(), now: 1)
                let reply = try #require(frames(fresh.output).first, "\(what)")
                #expect(reply.kind == newKind.rawValue, "\(what)")
                #expect((try? handshake.readMessage(reply.payload)) != nil, "the fresh connection answered the new handshake: \(what)")
            }
        }
    }

    @Test func refusedHandshakesCostTheBandNoKeyWork() throws {
        // One peer address: a paired laptop's IK message 1 recorded and replayed 200 times,
        // then 100 forged ones (new keys, not paired) in 2 s, then the laptop itself (the
        // attacker behind the laptop's own NAT address).
        let host = TestBandHost()
        host.gate = HandshakeGate(now: 0)
        let limits = host.gate!.limits
        let laptop = NoiseKeyPair.generate()
        host.paired.append(laptop.publicKey)
        var id = 0
        func attempt(_ frame: [UInt8], at now: Double) -> (keyWork: Int, refusal: SyncMessage.FailureCode?) {
            id += 1
            let band = BandLinkConnection(id: id, host: host, now: now)
            band.receive(frame, now: now)
            return (band.handshakeKeyWork, refusal(band)?.code)
        }
        let recorded = try connectFrame(from: laptop, to: host.staticKeyPair.publicKey).frame
        let replays = (0 ..< 200).map { attempt(recorded, at: Double($0) * 0.01) }
        #expect(replays.map(\.keyWork).reduce(0, +) == 1, "read once; then refused unread")
        #expect(replays.dropFirst().allSatisfy { $0.refusal == .handshakeFailed })
        let forged = try (0 ..< 100).map { try attempt(connectFrame(from: .generate(), to: host.staticKeyPair.publicKey).frame, at: 2 + Double($0) * 0.02) }
        let forgedWork = forged.map(\.keyWork).reduce(0, +)
        #expect(forgedWork <= limits.addressBurst + Int(2 * limits.addressPerSecond) + 1, "\(forgedWork) handshakes worked on")
        #expect(forged.filter { $0.refusal == .busy }.count == 100 - forgedWork)
        // The laptop on that address now: told busy while its bucket is empty (it tries again after
        // 0.2 to 2 s), let in once a token came back.
        #expect(attempt(try connectFrame(from: laptop, to: host.staticKeyPair.publicKey).frame, at: 4).refusal == .busy)
        let later = attempt(try connectFrame(from: laptop, to: host.staticKeyPair.publicKey).frame, at: 4 + 1 / limits.addressPerSecond)
        #expect(later.keyWork == 1 && later.refusal == nil)
    }

    @Test func helloComesFirst() throws {
        let host = TestBandHost()
        let (link, _) = try connectedLaptop(host)
        #expect(throws: SyncError.self) { try link.request(.getSettings) }
        try link.hello()
        #expect(try link.request(.getSettings) == .settings([SyncMessage.SettingValue(key: "reduction_percent", value: "20")]))
    }

    @Test func longListsComeInPages() throws {
        let host = TestBandHost()
        host.pageLength = 2
        for n in 1 ... 5 { host.add(testRecord(seconds: 30, seed: n)) }
        let (link, _) = try connectedLaptop(host)
        let sink = TestSink()
        #expect(try Synchronizer(sink: sink, link: link).run().pulled.count == 5)
        #expect(sink.stored.keys.sorted() == [1, 2, 3, 4, 5])
    }

    // MARK: Sync

    @Test func syncPullsEverySessionAndAcknowledgesAfterStoring() throws {
        let host = TestBandHost()
        for n in 1 ... 3 { host.add(testRecord(seconds: 1800, seed: n)) }
        let (link, _) = try connectedLaptop(host)
        let sink = TestSink()
        let result = try Synchronizer(sink: sink, link: link).run()
        #expect(result.pulled.count == 3)
        #expect(host.acknowledged == [1, 2, 3])
        for session in host.sessions {
            #expect(sink.stored[session.id] == SessionCoding.quantized(session.record))
            #expect(sink.storedData[session.id] == session.data, "the band's bytes reach the store as sent (for a study server)")
        }
        #expect(sink.cursor["test-band-id"] == 3)
        // Again: nothing new.
        let again = try Synchronizer(sink: sink, link: link).run()
        #expect(again.pulled.isEmpty && again.alreadyStored == 0, "the cursor skips what was kept")
    }

    @Test func aSessionStillBeingRecordedIsReportedNotSkippedInSilence() throws {
        let host = TestBandHost()
        host.add(testRecord(seconds: 60, seed: 1))
        let walk = SyncMessage.RecordingEntry(id: 2, kind: "mindful-walk", startUnixSeconds: 1_800_000_100, recordedSeconds: 312)
        host.recording = [walk]
        let (link, _) = try connectedLaptop(host)
        let sink = TestSink()
        let result = try Synchronizer(sink: sink, link: link).run()
        #expect(result.pulled.map(\.bandSessionID) == [1])
        #expect(result.recording == [walk])
        #expect(sink.recording == .some([walk]), "the store learns what the band records")
        // It ends: the next sync pulls it and the band records nothing.
        host.add(testRecord(seconds: 312, seed: 2))
        host.recording = []
        let next = try Synchronizer(sink: sink, link: link).run()
        #expect(next.pulled.map(\.bandSessionID) == [2])
        #expect(next.recording == [])
        #expect(sink.recording == .some([]))
    }

    @Test func aBandsNameAndIDReachTheTerminalOnlyAsPrintableText() throws {
        let host = TestBandHost()
        host.welcomeName = "Evil\u{1B}]0;owned\u{07}\nband"
        let (link, _) = try connectedLaptop(host)
        #expect(try link.hello().bandName == "Evil?]0;owned??band")
        let hostile = TestBandHost()
        hostile.welcomeID = "../\u{1B}[2J"
        let (other, _) = try connectedLaptop(hostile)
        #expect(throws: SyncError.self) { try other.hello() }
        do { _ = try other.hello() } catch {
            #expect(!"\(error)".unicodeScalars.contains { $0.value == 0x1B }, "\(error)")
        }
    }

    @Test func aBandOfVersionThreeIsSyncedWithoutBeingAskedItsStatus() throws {
        let host = TestBandHost()
        host.version = 3
        host.recording = [SyncMessage.RecordingEntry(id: 2, kind: "mindful-walk", startUnixSeconds: 1_800_000_100, recordedSeconds: 5)]
        host.add(testRecord(seconds: 60, seed: 1))
        let (link, _) = try connectedLaptop(host)
        let sink = TestSink()
        let result = try Synchronizer(sink: sink, link: link).run()
        #expect(result.pulled.count == 1)
        #expect(result.recording == nil)
        #expect(host.statusRequests == 0)
        #expect(sink.recording == .some(nil), "the store forgets what it cannot know")
    }

    @Test func aDamagedAnswerIsAskedForAgainNotTheEndOfTheSync() throws {
        let host = TestBandHost()
        host.add(testRecord(seconds: 600))
        let (link, stream) = try connectedLaptop(host)
        let start = stream.sentByBand
        // Flip one byte in the middle of the first answer after the handshake.
        stream.bandToLaptop = { index, byte in index == start + 20 ? byte ^ 0x40 : byte }
        let result = try Synchronizer(sink: TestSink(), link: link).run()
        #expect(result.pulled.count == 1)
        #expect(link.resentRequests == 1)
    }

    @Test func aDamagedRequestIsSentAgainAfterSilence() throws {
        let host = TestBandHost()
        host.add(testRecord(seconds: 600))
        let (link, stream) = try connectedLaptop(host)
        let start = stream.sentByLaptop
        stream.laptopToBand = { index, byte in index == start + 12 ? byte ^ 0x01 : byte }
        let result = try Synchronizer(sink: TestSink(), link: link).run()
        #expect(result.pulled.count == 1)
        #expect(link.resentRequests == 1)
    }

    @Test func aTransferCutAtAHundredRandomOffsetsResumesWithNothingLostOrDoubled() throws {
        var generator = SplitMix64(seed: 2026)
        let records = (1 ... 3).map { testRecord(seconds: 900 + 300 * $0, seed: $0) }
        var totalBytes = 0
        do {
            // How many bytes a full sync of these sessions moves, with small chunks.
            let host = TestBandHost()
            records.forEach(host.add)
            let (link, stream) = try connectedLaptop(host)
            var sync = Synchronizer(sink: TestSink(), link: link)
            sync.chunkLength = 512
            _ = try sync.run()
            totalBytes = stream.sentByBand + stream.sentByLaptop
        }
        for _ in 0 ..< 100 {
            let host = TestBandHost()
            records.forEach(host.add)
            let laptop = NoiseKeyPair.generate()
            host.paired.append(laptop.publicKey)
            let sink = TestSink()
            var cut = Int(generator.next() % UInt64(totalBytes))
            var attempts = 0
            while true {
                attempts += 1
                let band = BandLinkConnection(id: attempts, host: host, now: clock.nowSeconds)
                let stream = PumpedStream(band: band, clock: clock)
                stream.cutAfterBytes = cut
                let link = CompanionLink(stream: stream, laptopKeyPair: laptop, clock: clock, timeoutSeconds: 5)
                var sync = Synchronizer(sink: sink, link: link)
                sync.chunkLength = 512
                do {
                    try link.connect(bandPublicKey: host.staticKeyPair.publicKey)
                    _ = try sync.run()
                    break
                } catch {
                    cut = .max   // the next attempt runs to the end
                }
                try #require(attempts < 3)
            }
            #expect(sink.stored.count == 3)
            for session in host.sessions {
                #expect(sink.stored[session.id] == SessionCoding.quantized(session.record))
            }
            #expect(sink.storeCalls == 3, "no session stored twice")
            #expect(Set(host.acknowledged) == [1, 2, 3])
            #expect(host.sessions.allSatisfy { $0.synced })
        }
    }
}

