// swift-tools-version: 6.1
import PackageDescription

// Every concrete generic type the code names (a `Set<Key>`, a `KeyedDecodingContainer<CodingKeys>`)
// is made by the compiler's direct metadata accessors, not by demangling its name at run time: a
// name that carries a conformance (`Key: Hashable`) has the runtime look it up through every
// loaded library's conformance records the first time, about 0.3 M instructions each, a dozen at
// every `status`'s start (scripts/BENCHMARKS.md, issue 32 round three).
let directMetadata: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

let package = Package(
    name: "bikecheck",
    // Linux is what is built and tested (CI: Debian). macOS 14 is the minimum a macOS build
    // needs; the socket code has its Darwin spellings (#if canImport(Darwin)), but no macOS build
    // is run here, so macOS is untested (see CHANGELOG.md).
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bikecheck", targets: ["bikecheck"]),
        // `report --serve`'s HTTP server, a shared library bikecheck loads with dlopen only when
        // it serves (installed beside the binary; `swift build` puts it beside it too).
        .library(name: "BikeCheckReportHTTP", type: .dynamic, targets: ["ReportHTTP"]),
        // TCX and GPX's XML parser (FoundationXML, libxml2), a shared library bikecheck loads with
        // dlopen only to read such a file (installed beside the binary, as the server's is).
        .library(name: "BikeCheckRideXML", type: .dynamic, targets: ["RideFilesXML"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // HTTP: `report --serve`'s server (in ReportHTTP, never linked into bikecheck: FlyingFox
        // imports FoundationNetworking, which loads libcurl), and the tests' stand-in Strava server.
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
    ],
    targets: [
        // libyaml, from the system (Debian: libyaml-dev). Only LocatedYAML imports it.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),
        // Diagnostics as values, and their compiler-style rendering.
        .target(name: "Diagnostics", swiftSettings: directMetadata),
        // A YAML layer that knows nothing about bikes: a located node tree over libyaml.
        .target(name: "LocatedYAML", dependencies: ["CYAML", "Diagnostics"], swiftSettings: directMetadata),
        // The garage: model, loading pipeline, activity cache, status.
        .target(name: "BikeCheckKit", dependencies: ["LocatedYAML", "Diagnostics"], swiftSettings: directMetadata),
        // libcurl's easy API behind one non-variadic C function (Debian: libcurl4-openssl-dev for
        // the headers). libcurl is loaded with dlopen on first use, not linked, so commands that
        // do not talk to Strava do not load it and its ~30 dependencies.
        .target(name: "CCurlShim", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Strava: OAuth tokens, the API client, sync into the activity cache, archive import.
        .target(
            name: "StravaKit",
            dependencies: ["BikeCheckKit", "RideFiles", "CCurlShim", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: directMetadata
        ),
        // Reminders: what newly crossed a band, the state of what was sent, and the channels
        // (ntfy and webhooks over StravaKit's HTTP transport, email over libcurl's SMTP).
        .target(name: "NotifyKit", dependencies: ["BikeCheckKit", "StravaKit", "CCurlShim"], swiftSettings: directMetadata),
        // Rides from files: FIT (decoded from the published protocol), TCX and GPX (Foundation's
        // XML parser, in RideFilesXML's library), each also gzipped, zips unpacked with a limit,
        // and their import into the activity cache (its store and lock are BikeCheckKit's:
        // nothing of StravaKit's is used).
        .target(
            name: "RideFiles",
            dependencies: ["BikeCheckKit", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: directMetadata
        ),
        // Foundation's XML parser behind one C entry point; built only as the BikeCheckRideXML
        // shared library, which RideFiles dlopens to read a TCX or GPX file, so that no other
        // command loads FoundationXML, libxml2, ICU's common library and liblzma. Knows nothing of rides.
        .target(name: "RideFilesXML"),
        // The language server (`bikecheck lsp`): JSON-RPC over stdio, the garage's diagnostics,
        // completion and definitions in the editor.
        .target(name: "BikeCheckLSP", dependencies: ["BikeCheckKit", "LocatedYAML", "Diagnostics", "JSONRPC"], swiftSettings: directMetadata),
        // JSON-RPC 2.0's value types, shared by the language server and the MCP server.
        .target(name: "JSONRPC", swiftSettings: directMetadata),
        // The MCP server (`bikecheck mcp`): newline-delimited JSON-RPC over stdio, the tools and
        // the garage's files as resources; the tools themselves are the commands' (in `bikecheck`).
        .target(name: "BikeCheckMCP", dependencies: ["BikeCheckKit", "JSONRPC"], swiftSettings: directMetadata),
        // `report --serve`'s HTTP layer over FlyingFox, behind one C entry point; built only as
        // the BikeCheckReportHTTP shared library, which bikecheck dlopens for `report --serve`, so
        // that no other command loads FoundationNetworking and libcurl. Knows nothing of bikes.
        .target(
            name: "ReportHTTP",
            dependencies: [.product(name: "FlyingFox", package: "FlyingFox"), .product(name: "FlyingSocks", package: "FlyingFox")]
        ),
        // The thin command-line front end.
        .executableTarget(
            name: "bikecheck",
            dependencies: [
                "BikeCheckKit",
                "BikeCheckLSP",
                "BikeCheckMCP",
                "JSONRPC",
                "StravaKit",
                "NotifyKit",
                "RideFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: directMetadata,
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        .testTarget(name: "LocatedYAMLTests", dependencies: ["LocatedYAML", "Diagnostics", "TestSupport"]),
        // What the test targets share: the built binary, running programs, check-jsonschema.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "BikeCheckKitTests",
            dependencies: ["BikeCheckKit", "Diagnostics", "LocatedYAML", "TestSupport"],
            // Read in place by CatalogueTests, SchemaTests and WriteGoldenTests (found from #filePath), not bundled.
            exclude: ["Catalogue", "SchemaFixtures", "Golden"]
        ),
        // A real HTTP server on 127.0.0.1 that behaves as Strava's API does; tests only.
        .target(
            name: "StravaStandIn",
            dependencies: [.product(name: "FlyingFox", package: "FlyingFox")],
            path: "Tests/StravaStandIn"
        ),
        .testTarget(
            name: "StravaKitTests",
            dependencies: ["StravaKit", "StravaStandIn", "BikeCheckKit", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
        .testTarget(name: "RideFilesTests", dependencies: ["RideFiles", "BikeCheckKit", "TestSupport"], exclude: ["Tools"]),
        // The language server: its framing, and the real binary driven over pipes and by real clients.
        .testTarget(
            name: "LanguageServerTests",
            dependencies: ["BikeCheckLSP", "BikeCheckKit", "Diagnostics", "bikecheck", "TestSupport"],
            // Read in place by RealClientTests (found from #filePath), not bundled.
            exclude: ["Clients"]
        ),
        // The MCP server: its framing, and the real binary driven over pipes and by the `mcp` client.
        .testTarget(
            name: "MCPTests",
            dependencies: ["BikeCheckMCP", "JSONRPC", "bikecheck", "TestSupport"],
            // Read in place by MCPClientTests (found from #filePath), not bundled.
            exclude: ["Clients"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "BikeCheckKit", "NotifyKit", "bikecheck", "StravaStandIn", "TestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            // Read in place by ReportGoldenTests, SchemaTests and the tracker imports (found from #filePath), not bundled.
            exclude: ["Golden", "Trackers"]
        ),
    ]
)
