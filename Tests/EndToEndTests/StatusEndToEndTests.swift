import Foundation
import Testing

@Suite struct StatusEndToEndTests {
    @Test func statusOnTheExampleGarageShowsEveryBikeAndExitsZero() throws {
        let r = try runBikecheck(["status", "--garage", exampleGarage.path, "--as-of", "2026-11-15"], in: repositoryRoot)
        #expect(r.status == 0, "\(r.stderr)")
        for bike in ["charger", "grail", "stumpy", "tarmac"] {
            #expect(r.stdout.contains("\n\(bike) · "), "missing \(bike) in:\n\(r.stdout)")
        }
        #expect(r.stderr.isEmpty)
    }

    @Test func validateIsSilentOnTheExampleGarage() throws {
        let r = try runBikecheck(["validate", "--garage", exampleGarage.path], in: repositoryRoot)
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
    }
}
