import BikeCheckMCP
import Testing

/// MCP's stdio framing: one message a line, however the pipe cuts the bytes.
@Suite struct LineFramerTests {
    func events(_ chunks: [String], limit: Int = LineFramer.lineLimit) -> [LineFramer.Event] {
        var framer = LineFramer(lineLimit: limit)
        var out: [LineFramer.Event] = []
        for chunk in chunks {
            framer.append(Array(chunk.utf8))
            while let event = framer.next() { out.append(event) }
        }
        return out
    }

    func message(_ text: String) -> LineFramer.Event { .message(Array(text.utf8)) }

    @Test func aLineSplitOverReadsIsOneMessage() {
        #expect(events(["{\"a\":", "1}", "\n"]) == [message("{\"a\":1}")])
    }

    @Test func severalLinesInOneReadAreSeveralMessagesInOrder() {
        #expect(events(["{\"a\":1}\n{\"b\":2}\n{\"c\":"]) == [message("{\"a\":1}"), message("{\"b\":2}")])
    }

    @Test func aCarriageReturnBeforeTheNewlineAndBlankLinesAreDropped() {
        #expect(events(["{\"a\":1}\r\n\n  \r\n{\"b\":2}\n"]) == [message("{\"a\":1}"), message("{\"b\":2}")])
    }

    @Test func aLineLongerThanTheLimitIsSkippedOnceAndTheNextOneIsRead() {
        let long = String(repeating: "x", count: 40)
        let got = events([long.prefix(20) + "", long.suffix(20) + "xxxx", "xx\n{\"ok\":1}\n"], limit: 16)
        #expect(got == [.garbage("a line longer than 16 bytes"), message("{\"ok\":1}")])
    }

    @Test func aFramedMessageEndsWithOneNewlineAndNoHeader() {
        #expect(LineFramer.frame(Array("{}".utf8)) == Array("{}\n".utf8))
    }
}
