import Diagnostics
import Foundation

/// LubeLogger's CSV exports (hargata/lubelog: service, repair and upgrade records, one vehicle
/// per file) as an import plan: each row a log entry of the bike given, naming no interval, with
/// its cost in the garage's currency, a category (the `Type` column, else the kind of records
/// the file's name says) and a note made of the description, the notes, the part and the odometer.
/// LubeLogger's CSV has no ids: a row is the same record on a second import when the bike's log
/// has an entry of its day and cost whose note starts with its description.
package enum LubeLoggerCSV {
    /// The columns read, by LubeLogger's names (`Models/ImportModel.cs`), any letter case.
    static let columns = ["date", "odometer", "description", "notes", "cost", "type", "partnumber", "partsupplier", "partquantity", "tags"]

    package static func plan(_ sources: [ImportPlan.Source], bike: String?, garage: Garage) throws(WriteFailure) -> ImportPlan {
        guard let bike else {
            throw .usage("a LubeLogger export holds one vehicle's records: say whose with --bike BIKE")
        }
        guard garage.bike(BikeID(bike)) != nil else { throw WriteFailure(garage.noBike(bike)) }
        var plan = ImportPlan(format: "lubelogger", files: sources.map(\.path))
        for source in sources {
            let records = CSVReader.records(source.bytes)
            guard let header = records.first else { continue }
            let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "") }
            func column(_ name: String) -> Int? { names.firstIndex(of: name) }
            guard let dateColumn = column("date"), let descriptionColumn = column("description") else {
                throw .refused(
                    "'\(source.path)' is not a LubeLogger export: its first line should name the columns, Date and Description among them",
                    help: "export the records from LubeLogger's Service, Repair or Upgrade tab as CSV")
            }
            let fileName = (source.path as NSString).lastPathComponent.lowercased()
            let fileKind =
                fileName.contains("repair") || fileName.contains("collision")
                ? "repair" : fileName.contains("upgrade") ? "upgrade" : fileName.contains("service") ? "service" : nil
            for record in records.dropFirst() {
                let at = SourceLocation(
                    file: source.path,
                    range: SourceRange(
                        start: SourcePosition(offset: 0, line: record.line, column: 1), end: SourcePosition(offset: 0, line: record.line, column: 1)))
                func cell(_ k: Int?) -> String {
                    guard let k, k < record.fields.count else { return "" }
                    return record.fields[k].trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let description = cell(descriptionColumn)
                let shown = description.isEmpty ? "row" : "'\(description)'"
                guard let date = day(cell(dateColumn)) else {
                    plan.unplaced.append(.init(location: at, record: shown, reason: "date '\(cell(dateColumn))' is not YYYY-MM-DD or M/D/YYYY"))
                    continue
                }
                guard !description.isEmpty else {
                    plan.unplaced.append(.init(location: at, record: shown, reason: "it has no description to note"))
                    continue
                }
                // A record with no cost cost nothing: an expense of 0 needs no interval.
                let costText = cell(column("cost"))
                let plain = costText.isEmpty ? "0" : costText.filter { !"$€£¥ ,".contains($0) }
                guard case .success(let cost) = Money.parseAmount(plain[...]), cost >= 0 else {
                    plan.unplaced.append(.init(location: at, record: shown, reason: "cost '\(costText)' is not an amount"))
                    continue
                }
                let note = noteText(
                    description, notes: cell(column("notes")), part: cell(column("partnumber")), supplier: cell(column("partsupplier")),
                    quantity: cell(column("partquantity")), odometer: cell(column("odometer")))
                let type = cell(column("type")).lowercased()
                plan.log.append(
                    .init(owner: bike, date: date, cost: cost, costText: plain, category: type.isEmpty ? fileKind : type, note: note, key: description))
            }
        }
        return plan
    }

    /// A record's note: its description, its notes, the part and the odometer.
    static func noteText(_ description: String, notes: String, part: String, supplier: String, quantity: String, odometer: String) -> String {
        var note = description
        if !notes.isEmpty { note += ": " + notes }
        if !part.isEmpty {
            note += " (part \(part)" + (supplier.isEmpty ? "" : " from \(supplier)") + (quantity.isEmpty || quantity == "1" ? "" : " ×\(quantity)") + ")"
        }
        if !odometer.isEmpty && odometer != "0" { note += " at odometer \(odometer)" }
        return note
    }

    /// LubeLogger writes dates in its server's culture: ISO, or the US month/day/year.
    static func day(_ text: String) -> Day? {
        let date = text.split(separator: " ").first.map(String.init) ?? text
        if let d = Day(String(date.prefix(10))) { return d }
        let parts = date.split(separator: "/")
        guard parts.count == 3, let m = Int(parts[0]), let d = Int(parts[1]), var y = Int(parts[2]) else { return nil }
        if y < 100 { y += 2000 }
        return Day(String(format: "%04d-%02d-%02d", y, m, d))
    }
}
