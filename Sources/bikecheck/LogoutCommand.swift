import ArgumentParser
import BikeCheckKit
import Foundation
import StravaKit

struct LogoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke bikecheck's access on Strava and delete the saved tokens.",
        discussion:
            "Strava is asked to revoke the login through oauth/revoke (the app's id and secret as HTTP Basic, the refresh token in the body); before 2027-06-01, when Strava does not know oauth/revoke, through oauth/deauthorize (the access token in the Authorization header). The tokens are deleted even when Strava cannot be reached; revoke the access by hand at https://www.strava.com/settings/apps then. Not logged in: a note, exit 0. A token file that cannot be read is reported as corrupt, with its path, and deleted (revoke by hand). Exit 0 in each case."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The login of this rider of the household (garage.yaml's riders:).", valueName: "name"))
    var rider: String?

    func run() throws {
        let settings = try StravaCommandSupport.settings(global, rider: rider)
        let client = StravaCommandSupport.client(settings)
        switch client.deauthorize() {
        case .revoked:
            Terminal.standardOutput.write("Logged out: Strava revoked bikecheck's access, and the saved tokens are deleted.\n")
        case .unconfirmed:
            Terminal.standardOutput.write("Saved tokens deleted. Strava did not confirm the revocation: check https://www.strava.com/settings/apps\n")
        case .notLoggedIn:
            ErrorStyle.write(notes: ["not logged in to Strava ('\(settings.tokenPath)' does not exist); nothing to do"])
        case .unreadable(let path, let reason):
            Terminal.standardError.write(
                ErrorStyle.render(
                    Warning(
                        "the Strava token file '\(path)' is corrupt (\(reason)), so Strava could not be asked to revoke it; the file is deleted",
                        help: "revoke bikecheck's access by hand at https://www.strava.com/settings/apps")))
        }
    }
}
