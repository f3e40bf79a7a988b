import ArgumentParser
import BikeCheckKit

struct RideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ride",
        abstract: "Rides entered by hand, for bikes not on Strava.",
        subcommands: [Add.self]
    )

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a ride to rides.yaml (created when missing).",
            discussion: "Example:\n  bikecheck ride add charger --date 2026-06-01 --time 1h30 --distance 35km"
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var write: WriteOptions

        @Argument(help: "The bike ridden.", completion: Completions.bikes)
        var bike: String

        @Option(help: ArgumentHelp("The ride's date, YYYY-MM-DD.", valueName: "date"))
        var date: Day

        @Option(help: ArgumentHelp("Moving time: 1h30, 1:30, 90 min.", valueName: "duration"))
        var time: String

        @Option(help: ArgumentHelp("Distance: 35 km, 20 mi.", valueName: "distance"))
        var distance: String?

        @Option(help: ArgumentHelp("Strava sport type, e.g. GravelRide.", valueName: "type"))
        var sport: String?

        @Option(help: ArgumentHelp("A name for the ride.", valueName: "text"))
        var name: String?

        func run() throws {
            let root = try global.garageRoot()
            let ride = NewRide(bike: bike, date: date, time: time, distance: distance, sport: sport, name: name)
            try write.perform(
                { () throws(WriteFailure) in
                    try RideRecorder.plan(ride, in: WriteContext(root: root, today: today()))
                }, root: root, global: global)
        }
    }
}
