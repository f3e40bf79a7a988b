import BikeCheckLSP
import Testing

/// The framer on its own: bytes in whatever pieces a pipe delivers them.
@Suite struct MessageFramerTests {
    static let one = MessageFramer.frame(Array(#"{"jsonrpc":"2.0","method":"a"}"#.utf8))
    static let two = MessageFramer.frame(Array(#"{"jsonrpc":"2.0","method":"é😀"}"#.utf8))

    private func events(_ pieces: [[UInt8]]) -> [MessageFramer.Event] {
        var framer = MessageFramer()
        var out: [MessageFramer.Event] = []
        for piece in pieces {
            framer.append(piece)
            while let e = framer.next() { out.append(e) }
        }
        return out
    }

    private func body(_ framed: [UInt8]) -> [UInt8] { Array(framed[(framed.firstIndex(of: 123) ?? 0)...]) }

    @Test func everySplitOfTwoMessagesGivesTheSameTwoBodies() {
        let stream = Self.one + Self.two
        for cut in 0...stream.count {
            #expect(events([Array(stream[..<cut]), Array(stream[cut...])]) == [.message(body(Self.one)), .message(body(Self.two))], "cut at \(cut)")
        }
    }

    @Test func byteByByteGivesTheBodies() {
        #expect(events((Self.one + Self.two).map { [$0] }) == [.message(body(Self.one)), .message(body(Self.two))])
    }

    @Test func garbageIsReportedAndTheNextMessageStillArrives() {
        let got = events([Array("hello there\r\n\r\n".utf8) + Self.one])
        #expect(got.count == 2)
        if case .garbage = got.first {} else { Issue.record("expected garbage first, got \(got)") }
        #expect(got.last == .message(body(Self.one)))
    }

    @Test func garbageArrivingAloneIsReportedOnceNotAByteAtATime() {
        // The pipe delivers the garbage in a read of its own, then a message: one report.
        let e = events([Array("this is not a header\r\n\r\n".utf8), Self.one])
        #expect(e.count == 2, "\(e)")
        #expect(e.last == .message(body(Self.one)))
        // A header's start at the end of the garbage is kept for the rest of it.
        let cut = Self.one.count / 3
        let split = events([Array("junk\r\n\r\n".utf8) + Array(Self.one[..<4]), Array(Self.one[4..<cut]), Array(Self.one[cut...])])
        #expect(split.count == 2 && split.last == .message(body(Self.one)), "\(split)")
    }

    @Test func aContentLengthLargerThanAnyMessageIsUnrecoverableNeverASilentSkip() {
        for header in ["Content-Length: 99999999999999999\r\n\r\n", "Content-Length: 123456789012\r\n\r\n"] {
            let got = events([Array(header.utf8) + Self.one])
            guard case .unrecoverable(let reason)? = got.first else {
                Issue.record("\(header.debugDescription): \(got)")
                continue
            }
            #expect(reason.contains("cannot be followed"), "\(reason)")
            #expect(got.count == 1, "nothing is framed after it: \(got)")
        }
    }

    @Test func aHeaderWithoutContentLengthOrWithABadOneIsGarbage() {
        for header in ["Content-Type: x\r\n\r\n", "Content-Length: -5\r\n\r\n", "Content-Length: 1e3\r\n\r\n"] {
            let got = events([Array(header.utf8) + Self.one])
            #expect(got.last == .message(body(Self.one)), "\(header.debugDescription)")
            #expect(got.count == 2, "\(header.debugDescription): \(got)")
        }
    }

    @Test func headerNamesAreCaseInsensitiveAndOtherHeadersAreIgnored() {
        let framed = Array("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}".utf8)
        #expect(events([framed]) == [.message(Array("{}".utf8))])
    }

    @Test func endlessHeaderBytesAreDroppedNotKept() {
        var framer = MessageFramer()
        framer.append([UInt8](repeating: 65, count: MessageFramer.headerLimit * 4))
        var garbage = 0
        while let e = framer.next() { if case .garbage = e { garbage += 1 } }
        #expect(garbage >= 1)
        #expect(framer.pending < 64)
    }

    @Test func aBodyAboveTheLimitIsSkippedAsItArrivesAndTheNextMessageStillArrives() {
        var framer = MessageFramer(bodyLimit: 1000)
        framer.append(Array("Content-Length: 5000\r\n\r\n".utf8) + [UInt8](repeating: 32, count: 700))
        if case .garbage = framer.next() {} else { Issue.record("expected garbage") }
        #expect(framer.pending == 0)
        for _ in 0..<4 {
            framer.append([UInt8](repeating: 32, count: 1000))
            #expect(framer.next() == nil)
            #expect(framer.pending == 0)
        }
        framer.append([UInt8](repeating: 32, count: 300) + Self.one)
        #expect(framer.next() == .message(body(Self.one)))
        #expect(framer.pending == 0)
    }

    @Test func aHeaderCutShortDoesNotSwallowALaterMessage() {
        // "Content-Length: 12\r\n" and then no end of headers for longer than the limit: the next
        // message's end of headers must not make all of it one header block.
        let filler = [UInt8](repeating: 120, count: MessageFramer.headerLimit + 100)
        let got = events([Array("Content-Length: 12\r\n".utf8) + filler + Self.one])
        #expect(got.last == .message(body(Self.one)), "\(got)")
    }
}
