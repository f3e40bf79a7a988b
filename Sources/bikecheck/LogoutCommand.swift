import ArgumentParser
import Foundation
import StravaKit

struct LogoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke bikecheck's access on Strava and delete the saved tokens.",
        discussion: "The tokens are deleted even when Strava cannot be reached; revoke the access by hand at https://www.strava.com/settings/apps then."
    )

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let settings = try StravaCommandSupport.settings(garage: StravaCommandSupport.optionalGarage(global))
        let client = StravaCommandSupport.client(settings)
        do {
            if try client.deauthorize() {
                Terminal.standardOutput.write("Logged out: Strava revoked bikecheck's access, and the saved tokens are deleted.\n")
            } else {
                Terminal.standardOutput.write("Saved tokens deleted. Strava did not confirm the revocation: check https://www.strava.com/settings/apps\n")
            }
        } catch {
            throw StravaCommandSupport.fail(error)
        }
    }
}
