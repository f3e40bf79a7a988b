// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "bikecheck",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikecheck", targets: ["bikecheck"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // libyaml, from the system (Debian: libyaml-dev). Only LocatedYAML imports it.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        // Diagnostics as values, and their compiler-style rendering.
        .target(name: "Diagnostics"),
        // A YAML layer that knows nothing about bikes: a located node tree over libyaml.
        .target(name: "LocatedYAML", dependencies: ["CYAML", "Diagnostics"]),
        // The garage: model, loading pipeline, activity cache, status.
        .target(name: "BikeCheckKit", dependencies: ["LocatedYAML", "Diagnostics"]),
        // The thin command-line front end.
        .executableTarget(
            name: "bikecheck",
            dependencies: [
                "BikeCheckKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "LocatedYAMLTests", dependencies: ["LocatedYAML", "Diagnostics"]),
        .testTarget(
            name: "BikeCheckKitTests",
            dependencies: ["BikeCheckKit", "Diagnostics", "LocatedYAML"],
            // Read in place by CatalogueTests, SchemaTests and WriteGoldenTests (found from #filePath), not bundled.
            exclude: ["Catalogue", "SchemaFixtures", "Golden"]
        ),
        .testTarget(name: "EndToEndTests", dependencies: ["BikeCheckKit", "bikecheck"]),
    ]
)
