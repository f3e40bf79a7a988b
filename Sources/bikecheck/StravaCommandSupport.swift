import ArgumentParser
import BikeCheckKit
import Foundation
import StravaKit

/// What the Strava commands share: settings from the environment and garage.yaml, a client whose
/// notes go to standard error, and error reporting with exit codes.
enum StravaCommandSupport {
    /// The garage if one can be found (login, logout and whoami work without one).
    static func optionalGarage(_ global: GlobalOptions) -> String? {
        try? GarageLocator.locate(
            explicit: global.garage, environment: ProcessInfo.processInfo.environment,
            workingDirectory: FileManager.default.currentDirectoryPath)
    }

    static func settings(garage: String?, loaded: LoadedGarage? = nil) throws -> StravaSettings {
        var clientID = loaded?.garage.settings.stravaClientID
        // Loaded already (sync): its answer stands; parsing the garage again costs as much as the first time.
        if clientID == nil, loaded == nil, let garage {
            clientID = GarageLoader.load(at: garage, options: .init(activities: .skip)).garage.settings.stravaClientID
        }
        let settings = StravaSettings.from(environment: ProcessInfo.processInfo.environment, garageClientID: clientID)
        if let garage {
            do { try settings.checkOutside(garage: garage) } catch { throw fail(error) }
        }
        ErrorStyle.write(settings.tightenPermissions())
        return settings
    }

    /// The settings of `rider`'s login (`--rider NAME`), nil: the garage's one login. A rider must
    /// be one of garage.yaml's `riders:` (a usage error, exit 2, names the nearest otherwise).
    static func settings(_ global: GlobalOptions, rider: String?) throws -> StravaSettings {
        guard let rider else { return try settings(garage: optionalGarage(global)) }
        let root = try global.garageRoot()
        let loaded = GarageLoader.load(at: root, options: .init(activities: .skip))
        try loaded.garage.checkRider(rider)
        return try settings(garage: root, loaded: loaded).forRider(rider)
    }

    static func client(_ settings: StravaSettings) -> StravaClient {
        let client = StravaClient(settings: settings)
        client.log = { ErrorStyle.write(notes: [forRider(settings.rider, $0)]) }
        return client
    }

    /// Prints an error on one line and returns the exit code to throw: 1. `rider`: the login
    /// was a household rider's, so the remedies name it (`bikecheck login --rider NAME`).
    static func fail(_ error: Error, rider: String? = nil) -> ExitCode {
        if let e = error as? ExitCode { return e }
        Terminal.standardError.write(ErrorStyle.render(message: forRider(rider, "\(error)")))
        return ExitCode(1)
    }

    /// A message about a rider's login: its remedy `'bikecheck login…'` as `'bikecheck login --rider NAME…'`.
    static func forRider(_ rider: String?, _ text: String) -> String {
        guard let rider else { return text }
        return text.replacingOccurrences(of: "'bikecheck login", with: "'bikecheck login --rider \(rider)")
    }

    static func describe(_ token: StravaToken) -> String {
        let who = token.athleteName.flatMap { $0.isEmpty ? nil : $0 } ?? "athlete"
        return token.athleteID.map { "\(who) (athlete \($0))" } ?? who
    }
}
