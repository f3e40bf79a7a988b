import Foundation
import TestSupport

/// A garage for a tracker's sample export: metric, in euros, with the gravel bike the samples
/// name (Strava gear b101, a comment on its name line that an import must keep), and the sample
/// copied in as `name`.
func trackerGarage(with sample: URL, as name: String) throws -> TemporaryFolder {
    let folder = try TemporaryFolder([
        "garage.yaml": Array("units: metric\ncurrency: EUR\n".utf8),
        "bikes/grail.yaml": Array("name: Grail   # the gravel bike\nstrava: b101\n".utf8),
    ])
    try FileManager.default.copyItem(at: sample, to: folder.url.appendingPathComponent(name))
    return folder
}
