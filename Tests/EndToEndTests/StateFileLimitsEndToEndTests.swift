import Foundation
import TestSupport
import Testing

/// The files the last round left unbounded: each kind is checked for size before anything is
/// allocated for it, with a clear error (or, for the notify state, a warning and a fresh start),
/// never an abort. Each sparse file of 200 GiB takes no disk; read whole, it aborted.
extension DiagnosticLimitsEndToEndTests {
    /// A sparse file of `size` bytes at `url` (its folders made), which takes no disk.
    static func sparse(_ url: URL, size: UInt64 = 200 << 30) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: size)
        try handle.close()
    }

    @Test func initBesideAHugeGitignoreOrAHugeFileInTheWayRefusesWithoutReadingIt() throws {
        let folder = try TemporaryFolder()
        try Self.sparse(folder.url.appendingPathComponent(".gitignore"))
        let r = try runBikecheck(["init", folder.path], in: folder.url)
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("'.gitignore' in '\(folder.path)' is 200 GiB, more than a garage file may be (64 MiB); nothing was written"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/garage.yaml"))

        // A file init would write, larger than what init writes there: different, refused.
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent(".gitignore"))
        try Self.sparse(folder.url.appendingPathComponent("templates/road.yaml"))
        let inTheWay = try runBikecheck(["init", folder.path], in: folder.url)
        #expect(inTheWay.status == 1, "\(inTheWay.status) \(inTheWay.stderr)")
        #expect(inTheWay.stderr.contains("'templates/road.yaml' already exists in '\(folder.path)'; nothing was written"), "\(inTheWay.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/garage.yaml"))
    }

    @Test func exportOverAHugeTemplateFileRefusesWithoutReadingIt() throws {
        let garage = try TemporaryFolder(copying: true)
        let published = try TemporaryFolder()
        try Self.sparse(published.url.appendingPathComponent("templates/road-basics.yaml"))
        let r = try garage.run(["template", "export", "road-basics", published.path])
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(
            r.stderr.contains("'templates/road-basics.yaml' in '\(published.path)' is 200 GiB, more than a garage file may be (64 MiB); nothing was written"),
            "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: published.path + "/garage.yaml"))
    }

    @Test func importOfAnExportWithAHugeActivitiesFileRefusesWithoutReadingIt() throws {
        let garage = try TemporaryFolder(copying: true)
        try Self.sparse(garage.url.appendingPathComponent("export/activities.csv"))
        let r = try garage.run(["import", "strava-archive", "export"])
        #expect(r.status != 0 && r.status != 134, "\(r.status) \(r.stderr)")
        #expect(
            r.stderr.contains("'activities.csv' in '\(garage.path)/export' is 200 GiB, more than a Strava export's file may be (256 MiB)"), "\(r.stderr)")
    }

    @Test func aHugeLoginStateOrCredentialsFileIsAClearErrorNotAnAbort() throws {
        let garage = try TemporaryFolder(copying: true)
        let config = try TemporaryFolder()
        let environment = ["XDG_CONFIG_HOME": config.path, "STRAVA_CLIENT_ID": "4242", "STRAVA_CLIENT_SECRET": ""]
        // The manual login's saved state, which a pasted address is checked against.
        try Self.sparse(config.url.appendingPathComponent("bikecheck/strava-login-state.json"))
        let pasted = try garage.run(
            ["login", "--code", "http://localhost/exchange_token?state=abc&code=c0de"], environment: environment.merging(["STRAVA_CLIENT_SECRET": "s"]) { $1 })
        #expect(pasted.status == 1, "\(pasted.status) \(pasted.stderr)")
        #expect(pasted.stderr.contains("strava-login-state.json' is 200 GiB, more than a file of local state may be (16 MiB)"), "\(pasted.stderr)")

        // The app's credentials, which give the secret when the environment does not.
        try Self.sparse(config.url.appendingPathComponent("bikecheck/strava-credentials.json"))
        let login = try garage.run(["login", "--manual"], environment: environment)
        #expect(login.status == 1, "\(login.status) \(login.stderr)")
        #expect(
            login.stderr.contains(
                "the Strava credentials file '\(config.path)/bikecheck/strava-credentials.json' cannot be used (it is 200 GiB, more than a file of local state may be (16 MiB))"
            ), "\(login.stderr)")
    }
}

extension NotifyEndToEndTests {
    /// A sparse 20 GB state file drove `notify` to 21 GB before its 16 MiB check fired.
    @Test func aHugeStateFileIsSetAsideWithAWarningWithoutBeingRead() async throws {
        let world = try await World()
        try DiagnosticLimitsEndToEndTests.sparse(world.garage.root.appendingPathComponent(".bikecheck/notify-state.json"))
        let r = try await world.notify(["--dry-run", "--as-of", "2026-01-25"])
        #expect(r.status == 0, "\(r.status) \(r.stderr)")
        #expect(
            r.stderr.contains("warning: ignored the notify state in .bikecheck/notify-state.json (it is 200 GiB, more than 16 MiB); it starts over"),
            "\(r.stderr)")
        #expect(r.stdout.contains("webhook: would send 4 reminders"), "\(r.stdout)")
        await world.stop()
    }
}
