import ArgumentParser
import BikeCheckKit
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
            page elsewhere, and paste the whole address the browser ends on with --code: its state must \
            match the one --manual saved in the config folder (strava-login-state.json, used once, valid \
            for an hour), so a bare code is refused. The browser tab is answered only after the code \
            was exchanged. The client id and secret are checked before any page is printed. \
            Tokens are kept in $XDG_CONFIG_HOME/bikecheck/ (else ~/.config/bikecheck/), mode 0600 \
            (a folder or file open to others is tightened, with a warning), never in the garage (judged \
            by the real location, symbolic links followed), never printed, not even echoed by a server. \
            In a household (garage.yaml's riders:), 'login --rider NAME' keeps that rider's own token \
            (strava-token.NAME.json) on the same application; each rider logs in with their own \
            Strava account, and 'sync' brings every rider who has logged in (docs/household.md).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The whole address the browser ended on after 'login --manual' (its state is checked).", valueName: "address"))
    var code: String?

    @Flag(help: "Print the page to open and how to finish with --code, without listening for the redirect.")
    var manual = false

    @Flag(help: "Make Strava show every permission again (approval_prompt=force), to tick ones left out before.")
    var force = false

    @Option(help: "Port on 127.0.0.1 for the redirect (default: any free port).")
    var port: UInt16 = 0

    @Option(help: "Seconds to wait for the redirect.")
    var timeout: Int = 300

    @Option(help: ArgumentHelp("Log in as this rider of the household (garage.yaml's riders:), keeping their own token.", valueName: "name"))
    var rider: String?

    func run() throws {
        let settings = try StravaCommandSupport.settings(global, rider: rider)
        let client = StravaCommandSupport.client(settings)
        let login = StravaLogin(settings: settings)
        do {
            // A login that cannot finish must not send the rider to approve it.
            try login.requireCredentials()
            if let code {
                let callback = try login.checkPasted(code)
                let token = try client.exchange(code: callback.code, grantedScope: callback.scope)
                login.clearPending()
                try report(token, scope: callback.scope)
                return
            }
            let state = StravaLogin.randomState()
            if manual {
                let url = try client.authorizeURL(redirectURI: "http://localhost/exchange_token", state: state, force: force)
                try login.savePending(state: state)
                Terminal.standardError.write(
                    """
                    Open this page in a browser, sign in and press Authorize:
                      \(url.absoluteString)
                    The browser then ends on a page that cannot load (http://localhost/exchange_token?state=…&code=…).
                    Copy that whole address (its state is checked; this login waits for it for an hour) and run:
                      bikecheck login\(rider.map { " --rider " + $0 } ?? "") --code 'ADDRESS'\n
                    """)
                return
            }
            let listener = try LoopbackRedirect(port: port)
            let url = try client.authorizeURL(redirectURI: listener.redirectURI, state: state, force: force)
            Terminal.standardError.write(
                """
                Open this page in a browser, sign in and press Authorize:
                  \(url.absoluteString)
                Waiting for Strava's redirect on 127.0.0.1:\(listener.port) (Ctrl-C to stop; without a browser here, use 'bikecheck login --manual').\n
                """)
            // The tab is answered only once the code is exchanged: it says what really happened.
            var outcome: Result<(StravaToken, String?), Error> = .failure(StravaError.badCode("no redirect"))
            _ = try listener.waitForCallback(timeout: TimeInterval(timeout)) { parameters in
                outcome = Result {
                    let callback = try StravaLogin.callback(parameters, expectedState: state)
                    return (try client.exchange(code: callback.code, grantedScope: callback.scope), callback.scope)
                }
                let ok = (try? outcome.get()) != nil
                return "<!doctype html><title>bikecheck</title><p>"
                    + (ok ? "bikecheck is authorised and logged in to Strava. You can close this tab." : "bikecheck was not authorised; see the terminal.")
                    + "</p>\n"
            }
            let (token, scope) = try outcome.get()
            try report(token, scope: scope)
        } catch StravaError.pastedWithoutState {
            Terminal.standardError.write(ErrorStyle.render(message: "\(StravaError.pastedWithoutState)"))
            throw ExitCode(2)
        } catch {
            throw StravaCommandSupport.fail(error, rider: rider)
        }
    }

    /// Says who is logged in, and which permissions are missing (exit 1 when no rides can be read).
    func report(_ token: StravaToken, scope: String?) throws {
        Terminal.standardOutput.write("Logged in to Strava as \(StravaCommandSupport.describe(token))\(rider.map { " for rider " + $0 } ?? "").\n")
        guard scope != nil else { return }
        let granted = GrantedScopes(scope)
        let missing = granted.missing
        if !missing.isEmpty {
            // One help line, under the last: the same fix for every permission.
            let help = "run 'bikecheck login --force' and leave every box ticked on Strava's page"
            ErrorStyle.write(missing.enumerated().map { Warning("permission not granted: \($1)", help: $0 == missing.count - 1 ? help : nil) })
        }
        if !granted.canListActivities { throw ExitCode(1) }
    }
}
