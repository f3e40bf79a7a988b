import ArgumentParser
import Foundation
import StravaKit

struct LoginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Authorise bikecheck to read your Strava bikes and activities.",
        discussion: """
            Uses your own Strava API application (https://www.strava.com/settings/api): its client id \
            from STRAVA_CLIENT_ID or garage.yaml's 'strava: {client_id: …}', its secret from \
            STRAVA_CLIENT_SECRET. Prints a page to open in a browser and waits on 127.0.0.1 for \
            Strava's redirect. On a machine without a browser, run 'bikecheck login --manual', open the \
            page elsewhere, and paste the code (or the whole address the browser ends on) with --code. \
            Tokens are kept in $XDG_CONFIG_HOME/bikecheck/ (else ~/.config/bikecheck/), mode 0600 \
            (a folder or file open to others is tightened, with a warning), never in the garage (judged \
            by the real location, symbolic links followed), never printed, not even echoed by a server.
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("An authorisation code from Strava's redirect, or the whole redirect address.", valueName: "code"))
    var code: String?

    @Flag(help: "Print the page to open and how to finish with --code, without listening for the redirect.")
    var manual = false

    @Flag(help: "Make Strava show every permission again (approval_prompt=force), to tick ones left out before.")
    var force = false

    @Option(help: "Port on 127.0.0.1 for the redirect (default: any free port).")
    var port: UInt16 = 0

    @Option(help: "Seconds to wait for the redirect.")
    var timeout: Int = 300

    func run() throws {
        let garage = StravaCommandSupport.optionalGarage(global)
        let settings = try StravaCommandSupport.settings(garage: garage)
        let client = StravaCommandSupport.client(settings)
        do {
            if let code {
                try finish(client, parameters: Self.parameters(fromPasted: code))
                return
            }
            let state = Self.randomState()
            if manual {
                let url = try client.authorizeURL(redirectURI: "http://localhost/exchange_token", state: state, force: force)
                Terminal.standardError.write("""
                    Open this page in a browser, sign in and press Authorize:
                      \(url.absoluteString)
                    The browser then ends on a page that cannot load (http://localhost/exchange_token?…code=…).
                    Copy that address and run: bikecheck login --code 'ADDRESS'\n
                    """)
                return
            }
            let listener = try LoopbackRedirect(port: port)
            let url = try client.authorizeURL(redirectURI: listener.redirectURI, state: state, force: force)
            Terminal.standardError.write("""
                Open this page in a browser, sign in and press Authorize:
                  \(url.absoluteString)
                Waiting for Strava's redirect on 127.0.0.1:\(listener.port) (Ctrl-C to stop; without a browser here, use 'bikecheck login --manual').\n
                """)
            let parameters = try listener.waitForCallback(timeout: TimeInterval(timeout)) { p in
                let ok = p["error"] == nil && p["state"] == state && p["code"] != nil
                return "<!doctype html><title>bikecheck</title><p>" +
                    (ok ? "bikecheck is authorised. You can close this tab." : "bikecheck was not authorised; see the terminal.") + "</p>\n"
            }
            if parameters["error"] == nil, parameters["state"] != state { throw StravaError.stateMismatch }
            try finish(client, parameters: parameters)
        } catch {
            throw StravaCommandSupport.fail(error)
        }
    }

    func finish(_ client: StravaClient, parameters: [String: String]) throws {
        if let error = parameters["error"] {
            throw error == "access_denied" ? StravaError.accessDenied : StravaError.badCode(error)
        }
        guard let code = parameters["code"], !code.isEmpty else { throw StravaError.badCode("no code in the redirect") }
        let scope = parameters["scope"]
        let token = try client.exchange(code: code, grantedScope: scope)
        Terminal.standardOutput.write("Logged in to Strava as \(StravaCommandSupport.describe(token)).\n")
        guard scope != nil else { return }
        let granted = GrantedScopes(scope)
        let missing = granted.missing
        if !missing.isEmpty {
            for m in missing { Terminal.standardError.write("warning: permission not granted: \(m)\n") }
            Terminal.standardError.write("help: run 'bikecheck login --force' and leave every box ticked on Strava's page\n")
        }
        if !granted.canListActivities { throw ExitCode(1) }
    }

    /// A pasted code, or the parameters of a pasted redirect address.
    static func parameters(fromPasted text: String) -> [String: String] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.contains("?") || trimmed.contains("code="), let c = URLComponents(string: trimmed.contains("?") ? trimmed : "x:?" + trimmed) else {
            return ["code": trimmed]
        }
        var out: [String: String] = [:]
        for item in c.queryItems ?? [] { out[item.name] = item.value ?? "" }
        return out
    }

    static func randomState() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &g)) }.joined()
    }
}
