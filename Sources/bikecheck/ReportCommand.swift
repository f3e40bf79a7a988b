import ArgumentParser
import BikeCheckKit
import Diagnostics
import Foundation

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "The garage as one HTML page to open in a browser, print or hand to a buyer.",
        discussion: """
            One self-contained file (inline CSS and SVG, no script, nothing loaded from anywhere): \
            what is next across the bikes, then per bike each interval's progress with its state \
            and forecast, riding per month over the last twelve months (a chart and its table), \
            its parts and components with their lives, its costs per year and category, and every \
            service with the odometer at the time, its cost and note; then every part and where \
            it has been. The numbers are those of status, part list, usage, costs and history. \
            Light and dark follow the browser; printed, each bike starts a page, and with one \
            --bike the page is that bike's service record. The same garage and --as-of give the \
            same bytes.

            With --serve, the page is served on http://127.0.0.1:8035/ until Ctrl-C, read-only \
            (GET and HEAD): each request reads the garage again, the open page reloads itself \
            within five seconds of an edit, a garage with errors shows validate's diagnostics \
            until they are fixed, and /bike/ID is one bike's page. Only this machine can connect \
            unless --address says otherwise (docs/reports.md).

            Examples:
              bikecheck report --html --output garage.html
              bikecheck report --bike grail --as-of 2026-11-15 > grail-service-record.html
              bikecheck report --serve
            """
    )

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print HTML (the default and, for now, the only format: the same as --format html).")
    var html = false

    @Option(
        name: .customLong("bike"), help: ArgumentHelp("Only this bike (repeat for more; default: every bike not retired).", valueName: "bike"),
        completion: Completions.bikes)
    var bikes: [String] = []

    @Option(help: ArgumentHelp("Write the page to this file (default: standard output).", valueName: "file"), completion: .file())
    var output: String?

    @OptionGroup var asOf: AsOfOptions

    @OptionGroup var revision: RevisionOption

    @OptionGroup var riderOption: RiderOption

    @Flag(help: "Serve the page on http://127.0.0.1:8035/ until Ctrl-C; it shows each edit of the garage (docs/reports.md).")
    var serve = false

    @Option(help: ArgumentHelp("With --serve: the port (default \(Self.defaultPort); 0: a free one, printed).", valueName: "port"))
    var port: UInt16?

    @Option(
        help: ArgumentHelp(
            "With --serve: the address to listen on (default 127.0.0.1, this machine only; another lets other machines read the garage).",
            valueName: "ip"))
    var address: String?

    static let defaultPort: UInt16 = 8035

    func run() throws {
        if serve { return try serveReport() }
        if port != nil || address != nil { throw UsageError("--port and --address go with --serve", help: "bikecheck report --serve --port 8035") }
        let report = try build()
        switch format {
        case .html:
            // The page is written a section at a time (a page of 500 bikes is 15 MB); to a file,
            // its bytes are gathered for the atomic write, without a String of the whole page.
            let renderer = HTMLReportRenderer()
            guard let output else {
                // Written as bytes into one buffer and handed out a megabyte at a time: a
                // section made as a String and copied out again cost more than its bytes.
                renderer.render(report, chunk: 1 << 20) { Terminal.standardOutput.write(page: $0) }
                // The report (a hundred thousand services) is not taken apart one by one.
                Terminal.endAfterOutput()
            }
            var page: [UInt8] = []
            renderer.render(report, chunk: .max) { page += $0 }
            do {
                try AtomicFile.write(page, to: output)
            } catch {
                Terminal.standardError.write(ErrorStyle.render(message: "\(error)"))
                throw ExitCode(1)
            }
            Terminal.endAfterOutput()
        }
    }
}

extension ReportCommand {
    /// The report of the garage, its garage and rides let go once it is built (the page of 500
    /// bikes is laid out without them).
    func build() throws -> GarageReport {
        var (loaded, chosen) = try ReportOutput.loadBikes(
            global, names: bikes, revision: revision, rider: riderOption.rider, asOf: asOf.asOf, command: "report --bike",
            help: "the report of a bike lists the parts that were on it")
        let day = revision.day(asOf, loaded)
        // The rides are handed over, not kept here: the report lets them go before its service
        // history is made (at 1,000,000 rides, 56 MB of the peak).
        let summaries = loaded.activitySummaries
        loaded.activities = .none
        var report = GarageReport.build(loaded.garage, summaries: consume summaries, query: ReportQuery(bikes: chosen, asOf: day))
        report.git = revision.commit(try global.garageRoot(), loaded)
        return report
    }

    /// `--serve`: checks the options and the names once (a usage error exits 2 before anything
    /// listens), then serves until the process is stopped.
    func serveReport() throws {
        if output != nil { throw UsageError("--serve and --output do not go together", help: "the page is served, not written: drop --output") }
        if revision.rev != nil {
            throw UsageError("--serve shows the garage's files as they are now, not at a commit", help: "write the report of --rev to a file instead")
        }
        let root = try global.garageRoot()
        let first = GarageLoader.load(at: root, options: .init(activities: .summaries, today: today()))
        if !first.hasErrors {
            // Unknown bikes and riders are usage errors now; errors in the files are a page.
            _ = try ReportOutput.select(
                first, names: bikes, rider: riderOption.rider, asOf: asOf.asOf,
                checkNamed: ReportOutput.bikesOnly("report --bike", help: "the report of a bike lists the parts that were on it"))
        }
        let host = address ?? "127.0.0.1"
        let serve: ReportHTTPLibrary.Serve
        switch ReportHTTPLibrary.load() {
        case .success(let function): serve = function
        case .failure(let failure):
            Terminal.standardError.write(
                ErrorStyle.render(
                    message: "report --serve needs \(failure.path), and \(failure.reason)",
                    help: "install it beside bikecheck (scripts/install does; swift build builds it beside the binary)"))
            throw ExitCode(1)
        }
        // A browser that closes a connection mid-page must not end the server.
        signal(SIGPIPE, SIG_IGN)
        let context = ReportHTTPLibrary.Context(
            server: ReportServer(root: root, bikes: bikes, rider: riderOption.rider, asOf: asOf.asOf, address: address), host: host)
        var error = [CChar](repeating: 0, count: 1024)
        // Serves until the server fails; the context lives as long as the call.
        let status = withExtendedLifetime(context) {
            serve(
                host, port ?? Self.defaultPort, ReportHTTPLibrary.handler, ReportHTTPLibrary.listening,
                Unmanaged.passUnretained(context).toOpaque(), &error, error.count)
        }
        if status == 1 {
            throw UsageError("--address \(host) is not an IP address", help: "give 127.0.0.1 (the default), ::1, or an address of this machine")
        }
        let why = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Terminal.standardError.write(
            ErrorStyle.render(
                message: "cannot serve on \(host) port \(port ?? Self.defaultPort): \(why)", help: "choose another with --port N, or --port 0 for a free one"))
        throw ExitCode(1)
    }
}
