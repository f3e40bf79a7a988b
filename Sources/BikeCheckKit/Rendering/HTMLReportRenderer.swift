import Foundation

/// Renders a `GarageReport` as one self-contained HTML page: inline CSS and SVG, no script, no
/// address that loads anything, the same bytes for the same report. Everything from the garage's
/// files goes in through `HTML` interpolation, so it is escaped on the way in.
///
/// Colour only repeats what the words say (each state is written out), the page follows the
/// reader's light or dark scheme, and printed it starts each bike on a new page on white.
package struct HTMLReportRenderer: Sendable {
    /// How many of the most urgent intervals "Next up" lists.
    package var nextUpLimit = 12
    /// Each bike's heading links to its own page at `bike/ID` (`report --serve` serves one).
    package var linksBikePages = false

    package init() {}

    /// The page; `script` (for `report --serve`'s reload, `LivePage`) goes at the end of the body.
    package func render(_ report: GarageReport, script: HTML = "") -> HTML {
        var page: [UInt8] = []
        render(report, script: script, chunk: .max) { page += $0 }
        return HTML(written: page)
    }

    /// The page in pieces, in order: its start, the overview, each bike's section, the parts
    /// and its end; the pieces joined are `render(report, script:)`. A page of 500 bikes is
    /// written out a section at a time, never held whole.
    package func render(_ report: GarageReport, script: HTML = "", into write: (HTML) -> Void) {
        render(report, script: script, chunk: 0) { write(HTML(written: $0)) }
    }

    /// The page as UTF-8 bytes, every section written into one buffer (`HTMLBytes`), handed to
    /// `write` after a section once `chunk` bytes or more are gathered, and at the end; the bytes
    /// joined are `render(report, script:)`'s. No section is made as a String to be copied into
    /// the page: a page of 500 bikes is 15 MB, and each copy cost more than writing it.
    package func render(_ report: GarageReport, script: HTML = "", chunk: Int, writing write: ([UInt8]) -> Void) {
        var w = HTMLBytes()
        // Room for a chunk and the section that passes it; a whole page grows as it is written.
        if chunk < 1 << 24 { w.reserveCapacity(chunk + (1 << 16)) }
        func flush() {
            guard w.count >= chunk, w.count > 0 else { return }
            write(w.bytes)
            w.removeAll()
        }
        let title: HTML =
            report.named && report.bikes.count == 1
            ? "Service record: \(report.bikes[0].name)"
            : "\(report.garageName ?? "Garage"): maintenance report"
        w.append("\(Self.head(title: title))<body>\n<main>\n\(header(report, title: title))")
        flush()
        if !(report.named && report.bikes.count == 1) {
            w.append(contents(report) + nextUp(report) + costsByYear(report))
            flush()
        }
        // Each bike's status, usage rows and parts, found once for the page, not per section.
        let statuses = Dictionary(report.status.bikes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let usage = Dictionary(grouping: report.usage.rows, by: \.subject.id)
        let lives = Dictionary(grouping: report.lives.parts.filter { $0.bike != nil }, by: { $0.bike ?? "" })
        let months = ChartMonths(report.months, renderer: self)
        for bike in report.bikes {
            section(
                bike, status: statuses[bike.id], usage: usage[bike.id] ?? [], lives: lives[bike.id] ?? [], report: report, months: months, into: &w)
            flush()
        }
        w.append(parts(report))
        flush()
        w.append(
            """
            </main>
            <footer><p>Made by bikecheck from the garage's files\(commit(report.git)) as of \(report.asOf). Usage counts the rides status counts.</p></footer>
            \(script)</body>
            </html>

            """)
        if w.count > 0 { write(w.bytes) }
    }

    /// Every page's start, up to its body: the document's head with the style sheet (and `style`
    /// after it, for a page of its own, as `LivePage`'s).
    package static func head(title: HTML, style: HTML = "") -> HTML {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta name="generator" content="bikecheck">
        <title>\(title)</title>
        <style>\(styleSheet)\(style)</style>
        </head>

        """
    }

    /// `at commit <id>` (and whether the files had changes not in it), for tracing a page to its data.
    private func commit(_ git: GarageCommit?) -> HTML {
        guard let git else { return "" }
        guard let id = git.commit else { return " (in git, before its first commit)" }
        let changes: HTML = git.changes ? " with changes not yet committed" : ""
        return " at git commit <code class=\"commit\">\(id)</code>\(changes)"
    }

    // MARK: Sections

    private func header(_ report: GarageReport, title: HTML) -> HTML {
        let gear = report.bikes.filter { $0.kind != nil }.count
        let bikes = report.bikes.count - gear
        var facts: HTML = "As of <time datetime=\"\(report.asOf)\">\(report.asOf)</time>"
        if !(report.named && bikes + gear == 1) {
            facts += " · \(bikes) bike\(bikes == 1 ? "" : "s")" + (gear == 0 ? "" : " and \(gear) gear")
        }
        return "<header>\n<h1>\(title)</h1>\n<p class=\"meta\">\(facts)</p>\n</header>\n"
    }

    private func contents(_ report: GarageReport) -> HTML {
        var items: [HTML] = ["<li><a href=\"#next-up\">Next up</a></li>", "<li><a href=\"#costs\">Costs per year</a></li>"]
        for bike in report.bikes { items.append("<li><a href=\"#bike-\(bike.id)\">\(bike.name)</a></li>") }
        if report.lives.parts.contains(where: { $0.kind == .part }) { items.append("<li><a href=\"#parts\">Parts</a></li>") }
        return "<nav aria-label=\"Contents\"><ul>\(items)</ul></nav>\n"
    }

    private func nextUp(_ report: GarageReport) -> HTML {
        let all = report.nextUp
        // The to-dos due, after the intervals.
        let todos = report.status.dueTodos()
        var out: HTML = "<section id=\"next-up\" aria-labelledby=\"next-up-h\">\n<h2 id=\"next-up-h\">Next up</h2>\n"
        guard !all.isEmpty || !todos.isEmpty else { return out + "<p>Nothing is overdue or due soon.</p>\n</section>\n" }
        if !all.isEmpty {
            out +=
                "<table class=\"intervals\">\n<thead><tr><th scope=\"col\">Bike</th><th scope=\"col\">Task</th><th scope=\"col\">State</th><th scope=\"col\">Progress</th><th scope=\"col\">Used</th><th scope=\"col\">Forecast</th></tr></thead>\n<tbody>\n"
            for (bike, i) in all.prefix(nextUpLimit) {
                out +=
                    "<tr class=\"\(stateClass(i.state))\"><td><a href=\"#bike-\(bike.id)\">\(bike.name)</a></td><th scope=\"row\">\(i.task)</th><td>\(stateWord(i))</td><td class=\"nw\">\(progress(i))</td><td class=\"nw\">\(used(i, report.units))</td><td class=\"nw\">\(forecast(i, report.units))</td></tr>\n"
            }
            out += "</tbody>\n</table>\n"
            if all.count > nextUpLimit {
                let more = all.count - nextUpLimit
                out += "<p>And \(more) more overdue or due soon: see each bike below.</p>\n"
            }
        }
        if !todos.isEmpty {
            out +=
                "<table class=\"todos\">\n<thead><tr><th scope=\"col\">Bike</th><th scope=\"col\">To do</th><th scope=\"col\">State</th><th scope=\"col\">Due</th></tr></thead>\n<tbody>\n"
            for (bike, t) in todos {
                let due: HTML = t.due.map { "<time datetime=\"\($0)\">\($0)</time>" } ?? ""
                out +=
                    "<tr class=\"\(stateClass(t.state))\"><td><a href=\"#bike-\(bike.id)\">\(bike.name)</a></td><th scope=\"row\">\(t.task)</th><td>\(stateWord(t.state))</td><td class=\"nw\">\(due)</td></tr>\n"
            }
            out += "</tbody>\n</table>\n"
        }
        return out + "</section>\n"
    }

    private func costsByYear(_ report: GarageReport) -> HTML {
        let costs = report.costsByYear
        var out: HTML = "<section id=\"costs\" aria-labelledby=\"costs-h\">\n<h2 id=\"costs-h\">Costs per year</h2>\n"
        guard !costs.rows.isEmpty else { return out + "<p>No costs in the logs or prices yet.</p>\n</section>\n" }
        out +=
            "<table>\n<thead><tr><th scope=\"col\">Year</th><th scope=\"col\">Currency</th><th scope=\"col\" class=\"n\">Services</th><th scope=\"col\" class=\"n\">Purchases</th><th scope=\"col\" class=\"n\">Total</th><th scope=\"col\" class=\"n\">Per 1000 \(costs.units.distanceUnit)</th><th scope=\"col\" class=\"n\">Per ride hour</th></tr></thead>\n<tbody>\n"
        for r in costs.rows {
            out +=
                "<tr><th scope=\"row\">\(r.group)</th><td>\(r.currency ?? "")</td><td class=\"n\">\(r.services)</td><td class=\"n\">\(r.purchases)</td><td class=\"n\">\(r.total)</td><td class=\"n\">\(r.per1000.map(\.description) ?? "–")</td><td class=\"n\">\(r.perHour.map(\.description) ?? "–")</td></tr>\n"
        }
        out += "</tbody>\n<tfoot>\n"
        for t in costs.totals {
            out +=
                "<tr><th scope=\"row\">All years</th><td>\(t.currency ?? "")</td><td class=\"n\">\(t.services)</td><td class=\"n\">\(t.purchases)</td><td class=\"n\">\(t.total)</td><td></td><td></td></tr>\n"
        }
        return out + "</tfoot>\n</table>\n</section>\n"
    }

    /// A bike's section; `usage`: its rows of the report's usage, `lives`: the parts and
    /// components on it.
    private func section(
        _ bike: GarageReport.BikeFacts, status: BikeStatus?, usage: [UsageReport.Row], lives: [PartLife], report: GarageReport,
        months: ChartMonths, into w: inout HTMLBytes
    ) {
        // `bike-ID` and `h-bike-ID`: no bike's id can make one the other's (a suffix could:
        // bike `x`'s heading `bike-x-h` would be bike `x-h`'s section).
        var out: HTML = "<section class=\"bike\" id=\"bike-\(bike.id)\" aria-labelledby=\"h-bike-\(bike.id)\">\n"
        let page: HTML = linksBikePages ? " <a class=\"id\" href=\"bike/\(bike.id)\">own page</a>" : ""
        out += "<h2 id=\"h-bike-\(bike.id)\">\(bike.name) <span class=\"id\">\(bike.id)</span>\(page)</h2>\n"
        var facts: [HTML] = []
        if let kind = bike.kind { facts.append("<dt>Gear</dt><dd>\(kind.rawValue)</dd>") }
        if let bought = bike.bought { facts.append("<dt>Bought</dt><dd>\(bought)</dd>") }
        if let price = bike.price { facts.append("<dt>Price</dt><dd>\(money(price.amount, price.currency))</dd>") }
        if let retired = bike.retired { facts.append("<dt>Retired</dt><dd>\(retired)</dd>") }
        if let strava = bike.strava { facts.append("<dt>Strava gear</dt><dd>\(strava)</dd>") }
        if let last = report.services[bike.id]?.first {
            facts.append("<dt>Last service</dt><dd>\(last.entry.date)</dd>")
        }
        if !facts.isEmpty { out += "<dl class=\"facts\">\(facts)</dl>\n" }
        w.append(out)
        intervals(status, bike: bike, units: report.units, into: &w)
        w.append(todos(status))
        usageChart(bike, rows: usage, report: report, months: months, into: &w)
        partsOn(lives, report: report, into: &w)
        costs(bike, report: report, into: &w)
        history(bike, report: report, into: &w)
        w.markup("</section>\n")
    }

    /// The intervals' table, written as bytes: 500 bikes have 8,000 rows of a dozen values.
    private func intervals(_ status: BikeStatus?, bike: GarageReport.BikeFacts, units: UnitSystem, into w: inout HTMLBytes) {
        w.markup("<h3>Service intervals</h3>\n")
        guard let status, !status.intervals.isEmpty else { return w.append("<p>No intervals: add a template or intervals to bikes/\(bike.id).yaml.</p>\n") }
        w.markup(
            "<table class=\"intervals\">\n<thead><tr><th scope=\"col\">Task</th><th scope=\"col\">State</th><th scope=\"col\">Progress</th><th scope=\"col\">Used</th><th scope=\"col\">Counted since</th><th scope=\"col\">Forecast</th></tr></thead>\n<tbody>\n"
        )
        for i in status.intervals {
            w.markup("<tr class=\"")
            w.text(i.state.rawValue)
            w.markup("\"><th scope=\"row\">")
            w.text(i.task)
            // What it is: `part ID · ` first for a part's, then its id, then its component's.
            w.markup(" <span class=\"id\">")
            if let part = i.part {
                w.markup("part ")
                w.text(part)
                w.markup(" · ")
            }
            w.text(i.id)
            if let component = i.component, component != i.id {
                w.markup(" · ")
                w.text(component)
            }
            w.markup("</span></th><td>")
            stateWord(i, into: &w)
            w.markup("</td><td class=\"nw\">")
            progress(i, into: &w)
            w.markup("</td><td class=\"nw\">")
            w.append(used(i, units))
            w.markup("</td><td class=\"nw\">")
            if let since = i.since { w.day(since) } else { w.markup("never done") }
            w.markup("</td><td class=\"nw\">")
            forecast(i, units, into: &w)
            w.markup("</td></tr>\n")
        }
        w.markup("</tbody>\n</table>\n")
    }

    /// One-off jobs (`todo:`), most urgent first; nothing when there are none.
    private func todos(_ status: BikeStatus?) -> HTML {
        guard let status, !status.todos.isEmpty else { return "" }
        var out: HTML =
            "<h3>To do</h3>\n<table class=\"todos\">\n<thead><tr><th scope=\"col\">Task</th><th scope=\"col\">State</th><th scope=\"col\">Due</th></tr></thead>\n<tbody>\n"
        for t in status.todos {
            let task: HTML = t.part.map { "\(t.task) <span class=\"id\">part \($0)</span>" } ?? "\(t.task)"
            let due: HTML = t.due.map { "<time datetime=\"\($0)\">\($0)</time>" } ?? "no date"
            out += "<tr class=\"\(stateClass(t.state))\"><th scope=\"row\">\(task)</th><td>\(stateWord(t.state))</td><td class=\"nw\">\(due)</td></tr>\n"
        }
        return out + "</tbody>\n</table>\n"
    }

    /// Distance per month over the last twelve months, as bars, with a table of the numbers.
    /// Written as bytes (`HTMLBytes`): a page of 500 bikes has 500 charts of a few hundred pieces.
    private func usageChart(
        _ bike: GarageReport.BikeFacts, rows: [UsageReport.Row], report: GarageReport, months: ChartMonths, into w: inout HTMLBytes
    ) {
        let rows = Dictionary(rows.map { ($0.period, $0) }, uniquingKeysWith: { a, _ in a })
        let unit = report.units.distanceUnit
        let values = report.months.map { rows[$0].map { report.units.distance($0.distance) } ?? 0 }
        let first = months.names.first ?? "", last = months.names.last ?? ""
        let total = values.reduce(0, +)
        w.markup("<h3>Riding, last 12 months</h3>\n<figure class=\"chart\">\n")
        // The chart: 12 bars in a 640 × 220 box; the y axis is scaled to a round top.
        let (left, right, top, bottom) = Self.chartBox
        let (ceiling, step) = Self.axis(values.max() ?? 0)
        let slot = (right - left) / Double(values.count)
        w.markup("<svg viewBox=\"0 0 640 220\" width=\"640\" height=\"220\" role=\"img\" aria-labelledby=\"chart-")
        w.text(bike.id)
        w.markup("-t chart-")
        w.text(bike.id)
        w.markup("-d\"><title id=\"chart-")
        w.text(bike.id)
        w.markup("-t\">")
        w.text(bike.name)
        w.markup(": distance per month, ")
        w.text(first)
        w.markup(" to ")
        w.text(last)
        w.markup("</title><desc id=\"chart-")
        w.text(bike.id)
        w.markup("-d\">Total ")
        number(total, into: &w)
        w.markup(" ")
        w.text(unit)
        if let peak = values.indices.max(by: { values[$0] < values[$1] }), values[peak] > 0 {
            w.markup("; most in ")
            w.text(months.names[peak])
            w.markup(": ")
            number(values[peak], into: &w)
            w.markup(" ")
            w.text(unit)
        }
        w.markup(".</desc>\n<path class=\"grid\" d=\"")
        var ticks: [Double] = []
        var tick = 0.0
        while tick <= ceiling + step / 2 {
            ticks.append(tick)
            tick += step
        }
        for tick in ticks {
            let y = bottom - (bottom - top) * tick / ceiling
            w.markup("M")
            w.coordinate(left)
            w.markup(" ")
            w.coordinate(y)
            w.markup("H")
            w.coordinate(right)
        }
        w.markup("\"/>\n<g class=\"labels\">")
        for tick in ticks {
            let y = bottom - (bottom - top) * tick / ceiling
            w.markup("<text x=\"")
            w.coordinate(left - 6)
            w.markup("\" y=\"")
            w.coordinate(y + 4)
            w.markup("\" text-anchor=\"end\">")
            number(tick, into: &w)
            w.markup("</text>")
        }
        w.markup("<text x=\"")
        w.coordinate(left - 6)
        w.markup("\" y=\"12\" text-anchor=\"end\">")
        w.text(unit)
        w.markup("</text>")
        w.append(months.axis)
        w.markup("</g>\n<g class=\"bars\">")
        for (k, value) in values.enumerated() {
            let x = left + slot * Double(k) + slot * 0.15
            let height = ceiling > 0 ? (bottom - top) * value / ceiling : 0
            w.markup("<path d=\"M")
            w.coordinate(x)
            w.markup(" ")
            w.coordinate(bottom)
            w.markup("v")
            w.coordinate(-height)
            w.markup("h")
            w.coordinate(slot * 0.7)
            w.markup("v")
            w.coordinate(height)
            w.markup("z\"><title>")
            w.text(months.names[k])
            w.markup(": ")
            number(value, into: &w)
            w.markup(" ")
            w.text(unit)
            w.markup("</title></path>")
        }
        w.markup("</g>\n<path class=\"axis\" d=\"M")
        w.coordinate(left)
        w.markup(" ")
        w.coordinate(bottom)
        w.markup("H")
        w.coordinate(right)
        w.markup("\"/>\n</svg>\n<figcaption>Distance ridden per month on counted rides, ")
        w.text(first)
        w.markup(" to ")
        w.text(last)
        w.markup(": ")
        number(total, into: &w)
        w.markup(" ")
        w.text(unit)
        w.markup(" in all.</figcaption>\n</figure>\n")
        // The same numbers as a table, for screen readers and for anyone who wants the figures.
        w.markup("<details class=\"numbers\"><summary>The numbers behind the chart</summary>\n<table>\n")
        w.markup(
            "<thead><tr><th scope=\"col\">Month</th><th scope=\"col\" class=\"n\">Rides</th><th scope=\"col\" class=\"n\">Hours</th><th scope=\"col\" class=\"n\">Distance ("
        )
        w.text(unit)
        w.markup(")</th><th scope=\"col\" class=\"n\">Odometer (")
        w.text(unit)
        w.markup(")</th></tr></thead>\n<tbody>\n")
        for (k, month) in report.months.enumerated() {
            let r = rows[month]
            w.markup("<tr><th scope=\"row\">")
            w.text(months.names[k])
            w.markup("</th><td>")
            w.integer(r?.rides ?? 0)
            w.markup("</td><td>")
            w.fixed((r?.movingTime ?? 0) / 3600, 1)
            w.markup("</td><td>")
            number(report.units.distance(r?.distance ?? 0), into: &w)
            w.markup("</td><td>")
            if let r { number(report.units.distance(r.odometer), into: &w) }
            w.markup("</td></tr>\n")
        }
        w.markup("</tbody>\n</table>\n</details>\n")
    }

    /// The parts and components on the bike, written as bytes (500 bikes have 6,000).
    private func partsOn(_ lives: [PartLife], report: GarageReport, into w: inout HTMLBytes) {
        w.markup("<h3>Parts and components</h3>\n")
        guard !lives.isEmpty else { return w.markup("<p>No components or parts recorded on this bike.</p>\n") }
        w.markup(
            "<table>\n<thead><tr><th scope=\"col\">Name</th><th scope=\"col\">Kind</th><th scope=\"col\">Counted since</th><th scope=\"col\" class=\"n\">Distance ("
        )
        w.text(report.units.distanceUnit)
        w.markup(
            ")</th><th scope=\"col\" class=\"n\">Hours</th><th scope=\"col\" class=\"n\">Rides</th><th scope=\"col\">Ridden</th></tr></thead>\n<tbody>\n")
        for life in lives.sorted(by: { ($0.kind.rawValue, $0.id) < ($1.kind.rawValue, $1.id) }) {
            w.markup("<tr><th scope=\"row\">")
            w.text(life.name ?? life.id)
            w.markup(" <span class=\"id\">")
            w.text(life.id)
            w.markup("</span></th><td>")
            if life.kind == .part { w.markup("part") } else { w.markup("component") }
            w.markup("</td><td>")
            // A part's figures are its whole life (every mount, and its usage before tracking):
            // counted from its first mount, not from the day it came onto this bike.
            if let mounts = life.mounts, let first = mounts.first, let last = mounts.last {
                w.markup("whole life, from ")
                w.day(first.from)
                if last.from != first.from {
                    w.markup("; on this bike since ")
                    w.day(last.from)
                }
            } else if let since = life.since {
                w.day(since)
            } else {
                w.markup("first ride")
            }
            w.markup("</td>")
            lifeCells(life.usage, report.units, into: &w)
            w.markup("</tr>\n")
        }
        w.markup("</tbody>\n</table>\n")
    }

    /// The bike's costs by year and category, written as bytes.
    private func costs(_ bike: GarageReport.BikeFacts, report: GarageReport, into w: inout HTMLBytes) {
        let lines = report.costLines[bike.id] ?? []
        w.markup("<h3>Costs</h3>\n")
        // A part's services while on the bike are in its history with their cost, but they are
        // the part's costs (as in `costs`): say so, so that the record adds up.
        var partsCosts: [String: AmountSum] = [:]
        // By position: a service is not copied to read its cost.
        let services = report.services[bike.id] ?? []
        for k in services.indices where services[k].entry.subject.kind == .part {
            if let cost = services[k].entry.cost { partsCosts[services[k].entry.currency ?? "", default: AmountSum()].add(cost.value) }
        }
        var partsNote: HTML = ""
        if !partsCosts.isEmpty {
            let amounts = partsCosts.sorted { $0.key < $1.key }.map { money($0.value.value, $0.key.isEmpty ? nil : $0.key) }
            partsNote = "<p>Not counted here: \(amounts.joined(separator: " and ")) of parts' services in the history below (the parts' own costs).</p>\n"
        }
        guard !lines.isEmpty else {
            w.markup("<p>No costs in the log, and no price.</p>\n")
            return w.append(partsNote)
        }
        w.markup(
            "<table>\n<thead><tr><th scope=\"col\">Year</th><th scope=\"col\">Category</th><th scope=\"col\" class=\"n\">Entries</th><th scope=\"col\" class=\"n\">Amount</th></tr></thead>\n<tbody>\n"
        )
        var totals: [String: AmountSum] = [:]
        for line in lines {
            totals[line.currency ?? "", default: AmountSum()].add(line.amount)
            w.markup("<tr><th scope=\"row\">")
            w.text(line.year)
            w.markup("</th><td>")
            w.text(line.category)
            w.markup("</td><td class=\"n\">")
            if line.category != "purchase" { w.integer(line.entries) }
            w.markup("</td><td class=\"n\">")
            money(line.amount, line.currency, into: &w)
            w.markup("</td></tr>\n")
        }
        w.markup("</tbody>\n<tfoot>\n")
        for (currency, amount) in totals.sorted(by: { $0.key < $1.key }) {
            w.markup("<tr><th scope=\"row\" colspan=\"3\">Total</th><td class=\"n\">")
            money(amount.value, currency.isEmpty ? nil : currency, into: &w)
            w.markup("</td></tr>\n")
        }
        w.markup("</tfoot>\n</table>\n")
        w.append(partsNote)
    }

    private func history(_ bike: GarageReport.BikeFacts, report: GarageReport, into w: inout HTMLBytes) {
        let services = report.services[bike.id] ?? []
        w.markup("<h3>Service history</h3>\n")
        guard !services.isEmpty else { return w.markup("<p>Nothing in the log yet.</p>\n") }
        let unit = report.units.distanceUnit
        w.markup("<p>What was done, by interval id (the intervals above name their tasks), newest first.</p>\n")
        w.append(
            "<table class=\"history\">\n<thead><tr><th scope=\"col\">Date</th><th scope=\"col\">Done</th><th scope=\"col\" class=\"n\">Odometer (\(unit))</th><th scope=\"col\" class=\"n\">Hours</th><th scope=\"col\" class=\"n\">Cost</th><th scope=\"col\">Note</th></tr></thead>\n<tbody>\n"
        )
        // Rows stay compact, since a bike may have hundreds: interval ids rather than task names,
        // no end tags that HTML implies, alignment from the style sheet, no empty last cell.
        // Each row is written as bytes as it goes (a garage's history is a hundred thousand).
        // Read in place: a service is not copied (retained and released) to write its row.
        services.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return }
            for k in all.indices { historyRow(base + k, units: report.units, into: &w) }
        }
        w.markup("</tbody>\n</table>\n")
    }

    /// A row of the service history: the date, what was done (`part ID: ` first for a part's),
    /// the odometer and hours at the time, the cost, and the category and note when there are.
    private func historyRow(_ s: UnsafePointer<GarageReport.Service>, units: UnitSystem, into w: inout HTMLBytes) {
        w.markup("<tr><td>")
        w.day(s.pointee.entry.date)
        w.markup("<td>")
        if s.pointee.entry.subject.kind == .part {
            w.markup("part ")
            w.text(s.pointee.entry.subject.id)
            w.markup(": ")
        }
        let done = w.count
        // Each id read in place: a `Located` copied out retained its id and its location's file.
        s.pointee.entry.done.withUnsafeBufferPointer { ids in
            for k in ids.indices {
                if k > 0 { w.markup(", ") }
                w.text(ids[k].value.rawValue)
            }
        }
        if let todo = s.pointee.entry.todo {
            if w.count != done { w.markup(", ") }
            w.markup("to-do: ")
            w.text(todo)
        }
        for r in s.pointee.entry.readings ?? [] {
            if w.count != done { w.markup(", ") }
            w.markup("measured ")
            w.text(r.id)
            w.markup(" ")
            w.text(WearAmount(amount: r.value, unit: r.unit).description)
        }
        w.markup("<td>")
        number(units.distance(s.pointee.distance), into: &w)
        w.markup("<td>")
        w.fixed(s.pointee.movingTime / 3600, 0)
        w.markup("<td>")
        if let cost = s.pointee.entry.cost {
            w.amount(cost)
            if let currency = s.pointee.entry.currency {
                w.markup(" ")
                w.text(currency)
            }
        }
        // The category and the note, in the last cell; none when there is neither.
        if let category = s.pointee.entry.category {
            w.markup("<td>(")
            w.text(category)
            w.markup(")")
            if let note = s.pointee.entry.note {
                w.markup(" ")
                w.text(note)
            }
        } else if let note = s.pointee.entry.note, !note.isEmpty {
            w.markup("<td>")
            w.text(note)
        }
        w.markup("\n")
    }

    /// Every part (`parts/`), where it is and where it has been.
    private func parts(_ report: GarageReport) -> HTML {
        let parts = report.lives.parts.filter { $0.kind == .part }
        guard !parts.isEmpty else { return "" }
        let unit = report.units.distanceUnit
        let names = Dictionary(report.bikes.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        var out: HTML = "<section id=\"parts\" aria-labelledby=\"parts-h\">\n<h2 id=\"parts-h\">Parts</h2>\n"
        out +=
            "<table>\n<thead><tr><th scope=\"col\">Part</th><th scope=\"col\">Where</th><th scope=\"col\" class=\"n\">Distance (\(unit))</th><th scope=\"col\" class=\"n\">Hours</th><th scope=\"col\" class=\"n\">Rides</th><th scope=\"col\">Ridden</th><th scope=\"col\">Mounts</th></tr></thead>\n<tbody>\n"
        for p in parts {
            let place: HTML =
                p.retired.map { $0 <= report.asOf } ?? false
                ? "retired \(p.retired.map(\.description) ?? "")" : p.bike.map { "on \(names[$0] ?? $0)" } ?? "on the shelf"
            let mounts = (p.mounts ?? []).map { m -> HTML in
                let to: HTML = m.to.map { "\($0)" } ?? "now"
                return "<li>\(m.bike), \(m.from) to \(to): \(number(report.units.distance(m.usage.distance))) \(unit)</li>"
            }
            let list: HTML = mounts.isEmpty ? "never mounted" : "<ul>\(mounts)</ul>"
            out +=
                "<tr><th scope=\"row\">\(p.name ?? p.id) <span class=\"id\">\(p.id)</span></th><td>\(place)</td>\(lifeCells(p.usage, report.units))<td>\(list)</td></tr>\n"
        }
        return out + "</tbody>\n</table>\n</section>\n"
    }

    // MARK: Pieces

    private func lifeCells(_ u: LifeUsage, _ units: UnitSystem) -> HTML {
        let span: HTML = u.firstUse.map { f in "\(f) to \(u.lastUse.map(\.description) ?? "")" } ?? "never ridden"
        return
            "<td class=\"n\">\(number(units.distance(u.distance)))</td><td class=\"n\">\(ReportNumber.hours(u.movingTime))</td><td class=\"n\">\(u.rides)</td><td>\(span)</td>"
    }

    /// `lifeCells(u, units)`, written.
    private func lifeCells(_ u: LifeUsage, _ units: UnitSystem, into w: inout HTMLBytes) {
        w.markup("<td class=\"n\">")
        number(units.distance(u.distance), into: &w)
        w.markup("</td><td class=\"n\">")
        w.fixed(u.movingTime / 3600, 1)
        w.markup("</td><td class=\"n\">")
        w.integer(u.rides)
        w.markup("</td><td>")
        if let first = u.firstUse {
            w.day(first)
            w.markup(" to ")
            if let last = u.lastUse { w.day(last) }
        } else {
            w.markup("never ridden")
        }
        w.markup("</td>")
    }

    private func stateWord(_ i: IntervalStatus) -> HTML {
        switch i.state {
        case .snoozed: i.snoozedUntil.map { "Snoozed until <time datetime=\"\($0)\">\($0)</time>" } ?? "Snoozed"
        default: stateWord(i.state)
        }
    }

    /// `stateWord(i)`, written.
    private func stateWord(_ i: IntervalStatus, into w: inout HTMLBytes) {
        switch i.state {
        case .overdue: w.markup("<strong>Overdue</strong>")
        case .dueSoon: w.markup("Due soon")
        case .ok: w.markup("OK")
        case .snoozed:
            guard let until = i.snoozedUntil else { return w.markup("Snoozed") }
            w.markup("Snoozed until <time datetime=\"")
            w.day(until)
            w.markup("\">")
            w.day(until)
            w.markup("</time>")
        }
    }

    private func stateWord(_ s: IntervalState) -> HTML {
        switch s {
        case .overdue: "<strong>Overdue</strong>"
        case .dueSoon: "Due soon"
        case .ok: "OK"
        case .snoozed: "Snoozed"
        }
    }

    private func stateClass(_ s: IntervalState) -> HTML { HTML(escaping: s.rawValue) }

    /// A bar to 100 % (a notch past it when overdue) and the percentage, written.
    private func progress(_ i: IntervalStatus) -> HTML {
        let percent = ReportNumber.percent(i.progress)
        let width = coordinate(min(max(i.progress, 0), 1) * 100)
        return
            "<svg class=\"bar\" viewBox=\"0 0 100 10\" aria-hidden=\"true\"><rect width=\"100\" height=\"10\"/><rect class=\"fill\" width=\"\(width)\" height=\"10\"/></svg> \(percent) %"
    }

    /// `progress(i)`, written.
    private func progress(_ i: IntervalStatus, into w: inout HTMLBytes) {
        w.markup(
            "<svg class=\"bar\" viewBox=\"0 0 100 10\" aria-hidden=\"true\"><rect width=\"100\" height=\"10\"/><rect class=\"fill\" width=\"")
        w.coordinate(min(max(i.progress, 0), 1) * 100)
        w.markup("\" height=\"10\"/></svg> ")
        w.integer(ReportNumber.percent(i.progress))
        w.markup(" %")
    }

    /// The limit furthest along, in the rider's units: `6.8 of 8 h`, `412 of 932 mi (1500 km)`.
    private func used(_ i: IntervalStatus, _ units: UnitSystem) -> HTML {
        guard let deciding = i.deciding else { return "" }
        let measured = i.wear.map { "; measured \(WearAmount.number($0.latest.value)) of \(WearAmount(amount: $0.limit, unit: $0.unit))" } ?? ""
        return HTML(escaping: "\(units.usedText(deciding)) of \(units.limitText(deciding))" + measured)
    }

    private func forecast(_ i: IntervalStatus, _ units: UnitSystem) -> HTML {
        if i.state == .overdue { return "now" }
        guard let due = i.due else { return "no forecast" }
        // The limit that gives the day, when it is not the one shown (as status says it).
        return "<time datetime=\"\(due)\">\(due)</time>"
            + HTML(escaping: i.dueByWear ? " by measurement" : i.dueLimit.map { " by \(units.limitText($0))" } ?? "")
    }

    /// `forecast(i, units)`, written.
    private func forecast(_ i: IntervalStatus, _ units: UnitSystem, into w: inout HTMLBytes) {
        if i.state == .overdue { return w.markup("now") }
        guard let due = i.due else { return w.markup("no forecast") }
        w.markup("<time datetime=\"")
        w.day(due)
        w.markup("\">")
        w.day(due)
        w.markup("</time>")
        if i.dueByWear {
            w.markup(" by measurement")
        } else if let limit = i.dueLimit {
            w.markup(" by ")
            w.text(units.limitText(limit))
        }
    }

    private func money(_ amount: Decimal, _ currency: String?) -> HTML {
        "\(ReportAmount(amount).description)" + (currency.map { " \($0)" } ?? "")
    }

    /// `money(amount, currency)`, written.
    private func money(_ amount: Decimal, _ currency: String?, into w: inout HTMLBytes) {
        w.amount(ReportAmount(amount))
        if let currency {
            w.markup(" ")
            w.text(currency)
        }
    }

    /// A distance or tick value: whole numbers from 100, one decimal below.
    private func number(_ v: Double) -> String { v >= 100 || v == v.rounded() ? ReportNumber.fixed(v, 0) : ReportNumber.fixed(v, 1) }

    /// `number(v)`, written.
    private func number(_ v: Double, into w: inout HTMLBytes) { w.fixed(v, v >= 100 || v == v.rounded() ? 0 : 1) }

    /// An SVG coordinate to a tenth, the same on every machine.
    private func coordinate(_ v: Double) -> String {
        let s = ReportNumber.fixed(v, 1)
        return s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }

    /// Where a chart's plot is in its 640 × 220 box.
    static let chartBox = (left: 52.0, right: 630.0, top: 26.0, bottom: 188.0)

    /// The twelve months' names (`Mar 2026`) and the chart's labels under its x axis, the same
    /// for every bike's chart: made once for the page, not 500 times.
    struct ChartMonths {
        var names: [String]
        var axis = HTMLBytes()

        init(_ months: [String], renderer: HTMLReportRenderer) {
            names = months.map(renderer.monthName)
            // Where `usageChart` puts the months: a slot each between its left and right.
            let (left, right, _, bottom) = HTMLReportRenderer.chartBox
            let slot = (right - left) / Double(months.count)
            for (k, month) in months.enumerated() {
                let x = left + slot * (Double(k) + 0.5)
                let m = Int(month.suffix(2)) ?? 1
                axis.markup("<text x=\"")
                axis.coordinate(x)
                axis.markup("\" y=\"")
                axis.coordinate(bottom + 16)
                axis.markup("\" text-anchor=\"middle\">")
                axis.text(HTMLReportRenderer.monthNames[(m - 1) % 12])
                if k == 0 || m == 1 {
                    axis.markup("<tspan x=\"")
                    axis.coordinate(x)
                    axis.markup("\" dy=\"14\">")
                    axis.text(String(month.prefix(4)))
                    axis.markup("</tspan>")
                }
                axis.markup("</text>")
            }
        }
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `2026-03` → `Mar 2026`.
    func monthName(_ key: String) -> String {
        let m = Int(key.suffix(2)) ?? 1
        return "\(Self.monthNames[(max(m, 1) - 1) % 12]) \(key.prefix(4))"
    }

    /// A round top for a chart's y axis and the step between its lines: 1, 2, 2.5 or 5 times a
    /// power of ten, at most four steps.
    package static func axis(_ maximum: Double) -> (top: Double, step: Double) {
        guard maximum > 0 else { return (1, 1) }
        let raw = maximum / 4
        let power = pow(10, (log10(raw)).rounded(.down))
        let step = [1.0, 2, 2.5, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
        return ((maximum / step).rounded(.up) * step, step)
    }

    /// Light and dark schemes from the reader's setting; print on white, a page per bike.
    static let styleSheet: HTML = """

        :root { color-scheme: light dark; --bg: #ffffff; --fg: #1d2125; --muted: #5b636b; --rule: #d5d9dd; --head: #f2f4f6;
          --ok: #2f7d4f; --soon: #a86800; --over: #b3261e; --track: #e3e6e9; --bar: #3d6fb4; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #15181b; --fg: #e6e8ea; --muted: #a2aab2; --rule: #3a4046; --head: #22272c;
            --ok: #6cc48f; --soon: #f0b545; --over: #ff8a80; --track: #3a4046; --bar: #7fa8e0; }
        }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 72rem; padding: 1.5rem; background: var(--bg); color: var(--fg);
          font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", sans-serif; }
        h1 { font-size: 1.7rem; margin: 0 0 .25rem; }
        h2 { font-size: 1.35rem; margin: 2rem 0 .5rem; padding-top: .5rem; border-top: 2px solid var(--rule); }
        h3 { font-size: 1.05rem; margin: 1.5rem 0 .4rem; }
        .meta, .id, figcaption, footer { color: var(--muted); }
        .id { font-size: .85em; font-weight: normal; }
        nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; padding: 0; list-style: none; }
        a { color: inherit; }
        table { border-collapse: collapse; width: 100%; margin: .25rem 0 .75rem; }
        th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--rule); }
        thead th { background: var(--head); font-size: .9em; }
        tbody th { font-weight: 600; }
        .n { text-align: right; font-variant-numeric: tabular-nums; }
        tfoot th, tfoot td { font-weight: 600; border-bottom: none; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .5rem 0; }
        dl.facts dt { color: var(--muted); }
        dl.facts dd { margin: 0; }
        .bar { vertical-align: middle; width: 100px; height: 10px; }
        td.nw { white-space: nowrap; }
        .bar rect { fill: var(--track); rx: 2px; }
        .bar .fill { fill: var(--ok); }
        .due-soon .bar .fill { fill: var(--soon); }
        .overdue .bar .fill { fill: var(--over); }
        .overdue strong { color: var(--over); }
        figure.chart { margin: 0; }
        figure.chart svg { max-width: 100%; height: auto; }
        svg text { fill: var(--muted); font: 11px system-ui, sans-serif; }
        .chart .grid { stroke: var(--rule); stroke-width: 1; fill: none; }
        .chart .axis { stroke: var(--fg); stroke-width: 1; fill: none; }
        .chart .bars path { fill: var(--bar); }
        details.numbers summary { cursor: pointer; color: var(--muted); }
        table.history td { padding: .15rem .5rem; border-bottom: none; }
        table.history tbody tr { border-bottom: 1px solid var(--rule); }
        table.history td:first-child, table.history td:nth-child(5) { white-space: nowrap; }
        table.history td:nth-child(3), table.history td:nth-child(4), table.history td:nth-child(5), details.numbers td { text-align: right; font-variant-numeric: tabular-nums; }
        td ul { margin: 0; padding-left: 1rem; }
        @media print {
          :root { color-scheme: light; --bg: #ffffff; --fg: #000000; --muted: #444444; --rule: #bbbbbb; --head: #eeeeee;
            --ok: #2f7d4f; --soon: #a86800; --over: #b3261e; --track: #dddddd; --bar: #3d6fb4; }
          body { max-width: none; padding: 0; font-size: 10pt; }
          nav, details.numbers summary { display: none; }
          .bike { break-before: page; }
          header + .bike { break-before: auto; }
          h2, h3 { break-after: avoid; }
          tr, figure { break-inside: avoid; }
          thead { display: table-header-group; }
          * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
        }

        """
}
