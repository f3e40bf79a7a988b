import ArgumentParser
import Diagnostics
import Foundation
import StravaKit

struct WhoamiCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show which Strava athlete bikecheck is logged in as, and their bikes."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The login of this rider of the household (garage.yaml's riders:).", valueName: "name"))
    var rider: String?

    func run() throws {
        let settings = try StravaCommandSupport.settings(global, rider: rider)
        let client = StravaCommandSupport.client(settings)
        do {
            guard let token = try client.readSavedToken() else { throw StravaError.notLoggedIn }
            let athlete = try client.athlete()
            let name = athlete.displayName.isEmpty ? "athlete" : athlete.displayName
            var out: TerminalText = "\(name) (Strava athlete \(athlete.id))\n"
            if let scope = token.scope { out += "permissions: \(scope)\n" }
            if athlete.bikes.isEmpty {
                out +=
                    "no bikes on Strava\(GrantedScopes(token.scope).granted.contains("profile:read_all") || token.scope == nil ? "" : " (profile:read_all not granted)")\n"
            }
            for bike in athlete.bikes { out += "bike \(bike.id): \(bike.displayName)\n" }
            Terminal.standardOutput.write(out)
        } catch {
            throw StravaCommandSupport.fail(error, rider: rider)
        }
    }
}
