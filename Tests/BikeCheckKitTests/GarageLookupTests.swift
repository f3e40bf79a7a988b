@testable import BikeCheckKit
import Foundation
import TestSupport
import Testing

/// The questions commands ask of a garage, answered by the library on the example garage.
@Suite struct GarageLookupTests {
    let garage = GarageLoader.load(at: exampleGarage.path, options: .init(activities: .skip)).garage

    @Test func gearIDsMapToTheirBikes() {
        #expect(garage.bikeIDsByGearID["b1000001"] == "grail")
        #expect(!garage.bikeIDsByGearID.values.contains("charger"), "charger is not on Strava")
    }

    @Test func aTemplatesUsersAreTheBikesThatListIt() {
        #expect(garage.bikes(using: TemplateID("road-basics")) == ["grail", "tarmac"])
        #expect(garage.bikes(using: TemplateID("nothing")) == [])
    }

    @Test func anUnknownBikeIsAUsageErrorWithTheNearestAndTheList() {
        let failure = garage.noBike("grial")
        #expect(failure.message == "no bike 'grial'; did you mean 'grail'?")
        #expect(failure.help == "bikes: charger, grail, stumpy, tarmac; gear: running-shoes")
        #expect(garage.hasBikeFile("grail") && !garage.hasBikeFile("grial"))
    }

    @Test func completionNamesComeFromTheGarageTheCommandLineNames() {
        let words = ["bikecheck", "--garage", exampleGarage.path, "done", "grail", ""]
        let none = ["BIKECHECK_GARAGE": ""]
        let c = CompletionCandidates(words: words, prefix: "", environment: none, workingDirectory: "/")
        // Gear is named where a bike is.
        #expect(c.bikes == ["charger", "grail", "running-shoes", "stumpy", "tarmac"])
        #expect(c.templates.contains("road-basics"))
        #expect(c.firstArgument(after: "done", valueOptions: ["--garage"]) == "grail")
        #expect(c.intervals(of: "grail").contains("chain-lube"))
        #expect(CompletionCandidates(words: words, prefix: "ch", environment: none, workingDirectory: "/").parts(of: "grail") == ["chain"])
        // From the environment, then upward from the working directory.
        #expect(
            CompletionCandidates(words: ["bikecheck"], prefix: "st", environment: ["BIKECHECK_GARAGE": exampleGarage.path], workingDirectory: "/").bikes == [
                "stumpy"
            ])
        #expect(CompletionCandidates(words: ["bikecheck"], prefix: "t", environment: none, workingDirectory: exampleGarage.path + "/bikes").bikes == ["tarmac"])
        // No garage: nothing, and no error.
        #expect(CompletionCandidates(words: ["bikecheck"], prefix: "", environment: none, workingDirectory: "/").intervals(of: nil) == [])
    }
}
