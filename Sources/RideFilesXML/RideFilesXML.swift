import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

// TCX and GPX's XML parser, built as its own shared library (libBikeCheckRideXML) that bikecheck
// loads with dlopen only when it reads such a file: linking FoundationXML into bikecheck loaded it,
// libxml2, ICU's common library and liblzma on every command (about 650 symbol bindings at each
// start). This library knows nothing of rides: it runs Foundation's XMLParser (libxml2, external
// entities and namespaces off) and hands each element's start, text and end to the caller's C
// function pointers (Sources/RideFiles/XMLRideReader.swift reads the ride from them).
//
// The C interface (RideFiles declares the same types in XMLRideReader.swift; they must match):
//
//   typedef int32_t (*start_t)(void *context, const char *name, const char *const *names,
//                              const char *const *values, intptr_t count, intptr_t line);
//   typedef void (*text_t)(void *context, const uint8_t *utf8, intptr_t count);
//   typedef int32_t (*end_t)(void *context, const char *name, intptr_t line);
//   int32_t bikecheck_xml_parse(const uint8_t *bytes, intptr_t count, void *context,
//                               start_t start, text_t text, end_t end,
//                               intptr_t *error_code, intptr_t *line);
//
// `start` and `end` get the parser's line; a nonzero return stops the parse (XMLParser's
// abortParsing). `bikecheck_xml_parse` returns 1 when the parse ended without an error, else 0;
// it sets `error_code` to the parser's error code (-1 when it has none) and `line` to its line at
// the end. Every pointer is borrowed for the length of the call it is passed to.

public typealias XMLStart =
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?, Int, Int
    ) -> Int32
public typealias XMLText = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Void
public typealias XMLEnd = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Int32

@_cdecl("bikecheck_xml_parse")
public func bikecheckXMLParse(
    _ bytes: UnsafePointer<UInt8>?, _ count: Int, _ context: UnsafeMutableRawPointer?, _ start: XMLStart, _ text: XMLText, _ end: XMLEnd,
    _ errorCode: UnsafeMutablePointer<Int>?, _ line: UnsafeMutablePointer<Int>?
) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let parser = XMLParser(data: data)
    parser.shouldResolveExternalEntities = false
    parser.shouldProcessNamespaces = false
    let forwarder = Forwarder(context: context, start: start, text: text, end: end)
    parser.delegate = forwarder
    let parsed = parser.parse()
    errorCode?.pointee = parser.parserError.map { ($0 as NSError).code } ?? -1
    line?.pointee = parser.lineNumber
    return parsed && parser.parserError == nil ? 1 : 0
}

/// XMLParser's delegate: each event to the caller's function, the parse stopped when it asks.
final class Forwarder: NSObject, XMLParserDelegate {
    let context: UnsafeMutableRawPointer?
    let start: XMLStart
    let text: XMLText
    let end: XMLEnd

    init(context: UnsafeMutableRawPointer?, start: XMLStart, text: XMLText, end: XMLEnd) {
        self.context = context
        self.start = start
        self.text = text
        self.end = end
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        // Copies that live for the call: names and values as NUL-terminated UTF-8.
        let names = attributes.keys.map { strdup($0) }
        let values = attributes.keys.map { strdup(attributes[$0] ?? "") }
        defer {
            names.forEach { free($0) }
            values.forEach { free($0) }
        }
        let stop = elementName.withCString { name in
            names.map { UnsafePointer($0) }.withUnsafeBufferPointer { n in
                values.map { UnsafePointer($0) }.withUnsafeBufferPointer { v in
                    start(context, name, n.baseAddress, v.baseAddress, n.count, parser.lineNumber)
                }
            }
        }
        if stop != 0 { parser.abortParsing() }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        var string = string
        string.withUTF8 { text(context, $0.baseAddress, $0.count) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        let stop = elementName.withCString { end(context, $0, parser.lineNumber) }
        if stop != 0 { parser.abortParsing() }
    }
}
