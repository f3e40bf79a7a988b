import Foundation

/// Intervals.icu's gear list over its API: `GET /api/v1/athlete/{id}/gear` with the rider's API
/// key (HTTP Basic, user `API_KEY`), through the transport the Strava client uses (libcurl: the
/// same bounds, redirects never followed). It lives here, beside that transport, because
/// StravaKit is the one module that talks HTTP to the rider's services; the JSON it returns is
/// read by `IntervalsICUGear`, as a file of it would be.
package struct IntervalsICUClient: Sendable {
    /// Where Intervals.icu is and the rider's key: read once from the environment.
    package struct Settings: Sendable {
        /// `https://intervals.icu`, or `BIKECHECK_INTERVALS_ICU_URL` (tests point it at 127.0.0.1).
        package var baseURL: URL
        /// `INTERVALS_ICU_API_KEY`: Intervals.icu's Settings → Developer Settings → API key.
        package var apiKey: String?
        /// The bound on the request's total time (`BIKECHECK_HTTP_TIMEOUT_MS`, as Strava's).
        package var requestTimeoutMilliseconds: Int

        package static let keyVariable = "INTERVALS_ICU_API_KEY"
        package static let urlVariable = "BIKECHECK_INTERVALS_ICU_URL"

        package init(baseURL: URL, apiKey: String?, requestTimeoutMilliseconds: Int = 60_000) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        }

        package static func from(environment env: [String: String]) -> Settings {
            let base = env[urlVariable].flatMap { $0.isEmpty ? nil : URL(string: $0) } ?? URL(string: "https://intervals.icu")!
            let key = env[keyVariable].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
            let timeout = env["BIKECHECK_HTTP_TIMEOUT_MS"].flatMap(Int.init) ?? 60_000
            return Settings(baseURL: base, apiKey: key, requestTimeoutMilliseconds: max(1, timeout))
        }
    }

    /// Why the gear list did not arrive, in words for the rider; never with the key in them.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var message: String
        package var help: String?
        package var description: String { message }
    }

    package let settings: Settings
    let transport: HTTPTransport

    package init(settings: Settings, transport: HTTPTransport? = nil) {
        self.settings = settings
        self.transport = transport ?? CurlTransport(limits: .init(totalMilliseconds: settings.requestTimeoutMilliseconds))
    }

    /// An athlete id as the path takes it: `0` (the key's own athlete) or `i123456`.
    package static func isAthleteID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 40 && id.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0)) }
    }

    /// The address of an athlete's gear list.
    package func gearURL(athlete: String) -> URL {
        settings.baseURL.appendingPathComponent("api/v1/athlete/\(athlete)/gear")
    }

    /// The gear list's bytes, as Intervals.icu sent them.
    package func gear(athlete: String) throws(Failure) -> [UInt8] {
        let variable = Settings.keyVariable
        guard let key = settings.apiKey else {
            throw Failure(message: "\(variable) is not set", help: "set it to the API key of Intervals.icu's Settings → Developer Settings")
        }
        // A printable token only: a line break in the variable must not add headers of its own.
        guard key.unicodeScalars.allSatisfy({ (0x21..<0x7F).contains($0.value) }) else {
            throw Failure(message: "\(variable) holds a space, a line break or another character an API key cannot have", help: "set it to the key alone")
        }
        let url = gearURL(athlete: athlete)
        let host = url.host?.lowercased() ?? ""
        guard url.scheme?.lowercased() == "https" || ["127.0.0.1", "localhost", "::1"].contains(host) else {
            throw Failure(
                message: "the API key would cross the network in the clear to '\(origin(url))' (an http:// address)",
                help: "write \(Settings.urlVariable) as an https:// address")
        }
        let credentials = Data("API_KEY:\(key)".utf8).base64EncodedString()
        let request = HTTPRequestSpec(method: "GET", url: url, headers: ["Authorization": "Basic \(credentials)", "Accept": "application/json"])
        let reply: HTTPReply
        do {
            reply = try transport.send(request)
        } catch let error as HTTPTransportError {
            throw Failure(message: "cannot reach Intervals.icu at '\(origin(url))': \(redact(error.description, key, credentials))", help: nil)
        } catch {
            throw Failure(message: "cannot reach Intervals.icu at '\(origin(url))': \(redact("\(error)", key, credentials))", help: nil)
        }
        switch reply.status {
        case 200..<300:
            return Array(reply.body)
        case 401, 403:
            throw Failure(
                message: "Intervals.icu refused the API key in \(variable) (HTTP \(reply.status))",
                help: "check it in Intervals.icu's Settings → Developer Settings, and that athlete '\(athlete)' is yours or coached by you")
        case 404:
            throw Failure(
                message: "Intervals.icu has no athlete '\(athlete)' (HTTP 404)", help: "give your athlete id (i…) with --athlete, or leave it out for your own")
        case 300..<400:
            throw Failure(
                message: "Intervals.icu answered \(reply.status), a redirect, which bikecheck does not follow (the key must not travel elsewhere)",
                help: "check \(Settings.urlVariable)")
        default:
            let text = String(decoding: reply.body.prefix(300), as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ")
            throw Failure(message: "Intervals.icu answered HTTP \(reply.status): \(redact(text, key, credentials))", help: "try again later")
        }
    }

    func origin(_ url: URL) -> String {
        "\(url.scheme ?? "?")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
    }

    /// `text` with the key, and the header that carries it, blanked.
    func redact(_ text: String, _ secrets: String...) -> String {
        secrets.filter { !$0.isEmpty }.reduce(text) { $0.replacingOccurrences(of: $1, with: "****") }
    }
}
