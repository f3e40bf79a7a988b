import Foundation
import LocatedYAML

/// Applies an import plan to the garage, changing only what it must: a bike or part the garage
/// lacks gets a new file; a part it has gets the keys and mounts it lacks (a mount is the same
/// when its bike, `from` and tag are), and nothing it has is changed. So importing the same
/// file again changes nothing, and hand edits made since survive.
package enum ImportPlanWriter {
    package static func change(_ plan: ImportPlan, in context: WriteContext) throws(WriteFailure) -> GarageChange {
        var files: [FileChange] = []
        var summary: [String] = []
        var counts = (bikes: 0, parts: 0, mounts: 0, changedParts: 0)
        for bike in plan.bikes where context.bikeFile(bike.id) == nil && context.garage.bike(BikeID(bike.id)) == nil {
            var pairs = [YAMLPair("name", .text(bike.name))]
            if let strava = bike.strava { pairs.append(YAMLPair("strava", .text(strava))) }
            let bytes: [UInt8]
            do { bytes = try YAMLEditor.render(pairs, header: modeline("bike", depth: 1)) } catch { throw .refused("cannot write bike '\(bike.id)' as YAML") }
            files.append(FileChange(path: "bikes/\(bike.id).yaml", before: nil, after: bytes))
            summary.append("added bike '\(bike.id)' (\(bike.name)) in bikes/\(bike.id).yaml")
            counts.bikes += 1
        }
        for part in plan.parts {
            if let file = context.partFile(part.id) {
                try context.requireClean(file)
                guard let existing = context.garage.part(PartID(part.id))?.part else { continue }
                let (path, doc, root) = try context.partSource(existing)
                var edits: [YAMLEdit] = []
                var after = ["name"]
                if root["slot"] == nil, let slot = part.slot {
                    edits.append(.addKey("slot", .plain(slot), in: [], after: after))
                    after.append("slot")
                }
                if root["distance"] == nil, let km = part.kilometres, km > 0 {
                    edits.append(.addKey("distance", .plain("\(number(km)) km"), in: [], after: after))
                    after.append("distance")
                }
                if root["hours"] == nil, let h = part.hours, h > 0 { edits.append(.addKey("hours", .plain(number(h)), in: [], after: after)) }
                let have = Set(existing.mounts.filter(\.via.isEmpty).map { "\($0.bike.value)|\($0.from)|\($0.tag ?? "")" })
                let missing = part.mounts.filter { !have.contains("\($0.bike)|\($0.from)|\($0.tag ?? "")") }
                guard !edits.isEmpty || !missing.isEmpty else { continue }
                var bytes = edits.isEmpty ? doc.source.bytes : try context.edit(path, doc, edits)
                // One mount at a time, each appended to the list as the file now has it.
                for m in missing {
                    let now = YAMLDocument(path: path, bytes: bytes, limits: .garage)
                    guard case .mapping(let top)? = now.root else { throw .refused("'\(path)' is not a mapping") }
                    bytes = try context.edit(path, now, [.appendOrCreate(entry(m), list: "mounts", current: top["mounts"])])
                }
                let added = missing.count
                files.append(FileChange(path: path, before: doc.source.bytes, after: bytes))
                counts.mounts += added
                counts.changedParts += 1
                summary.append("part '\(part.id)': \(added) mount\(added == 1 ? "" : "s") added (\(path))")
            } else {
                var pairs = [YAMLPair("name", .text(part.name))]
                if let slot = part.slot { pairs.append(YAMLPair("slot", .plain(slot))) }
                if let km = part.kilometres, km > 0 { pairs.append(YAMLPair("distance", .plain("\(number(km)) km"))) }
                if let h = part.hours, h > 0 { pairs.append(YAMLPair("hours", .plain(number(h)))) }
                if !part.mounts.isEmpty { pairs.append(YAMLPair("mounts", .list(part.mounts.map(entry)))) }
                let bytes: [UInt8]
                do { bytes = try YAMLEditor.render(pairs, header: modeline("part", depth: 1)) } catch {
                    throw .refused("cannot write part '\(part.id)' as YAML")
                }
                let path = "parts/\(part.id).yaml"
                files.append(FileChange(path: path, before: nil, after: bytes))
                counts.parts += 1
                counts.mounts += part.mounts.count
                summary.append("added part '\(part.id)' (\(part.name)) with \(part.mounts.count) mount\(part.mounts.count == 1 ? "" : "s") in \(path)")
            }
        }
        // Log entries, bike by bike, each the same record at most once.
        var logged = 0
        for bikeID in Array(Set(plan.log.map(\.bike))).sorted() {
            guard let resolved = context.garage.bike(BikeID(bikeID)) else { throw WriteFailure(context.garage.noBike(bikeID)) }
            let path = resolved.bike.location.file
            try context.requireClean(path)
            guard let original = context.read(path) else { throw .refused("cannot read '\(path)'") }
            var bytes = original
            var added = 0
            for e in plan.log where e.bike == bikeID {
                let same = resolved.bike.log.contains {
                    $0.date == e.date && $0.cost?.value.amount == e.cost && ($0.note ?? "").hasPrefix(e.key) && $0.done.isEmpty
                }
                if same { continue }
                let doc = YAMLDocument(path: path, bytes: bytes, limits: .garage)
                guard case .mapping(let root)? = doc.root else { throw .refused("'\(path)' is not a mapping") }
                let style = EntryStyle(root["log"], defaultOrder: ["date", "done", "todo", "cost", "category", "note"])
                var fields: [String: YAMLValue] = ["date": .plain(e.date.description), "note": .text(e.note)]
                if let cost = e.cost { fields["cost"] = .plain(e.costText ?? "\(cost)") }
                if let category = e.category { fields["category"] = .text(category) }
                let entry = style.entry(fields)
                let edit: YAMLEdit =
                    ServiceRecorder.datedPosition(of: e.date, in: root["log"]).map { .insert(entry, into: ["log"], at: $0) }
                    ?? .appendOrCreate(entry, list: "log", current: root["log"])
                bytes = try context.edit(path, doc, [edit])
                added += 1
            }
            guard added > 0 else { continue }
            files.append(FileChange(path: path, before: original, after: bytes))
            logged += added
            summary.append("bike '\(bikeID)': \(added) log entr\(added == 1 ? "y" : "ies") added (\(path))")
        }
        let source = plan.files.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
        if files.isEmpty { summary = ["nothing to import from \(plan.format) \(source): the garage has it all"] }
        let message =
            "import \(plan.format) \(source): \(counts.bikes) new bike\(counts.bikes == 1 ? "" : "s"), \(counts.parts) new part\(counts.parts == 1 ? "" : "s"), \(counts.mounts) mount\(counts.mounts == 1 ? "" : "s"), \(logged) log entr\(logged == 1 ? "y" : "ies")"
        return context.change(files: files, message: message, summary: summary)
    }

    /// `{bike: grail, from: …, to: …, tag: race}` on one line.
    static func entry(_ m: ImportPlan.Mount) -> YAMLValue {
        var pairs = [YAMLPair("bike", .plain(m.bike)), YAMLPair("from", .plain(m.from.description))]
        if let to = m.to { pairs.append(YAMLPair("to", .plain(to.description))) }
        if let tag = m.tag { pairs.append(YAMLPair("tag", .text(tag))) }
        if !m.unlessTags.isEmpty { pairs.append(YAMLPair("unless_tag", .flowList(m.unlessTags.map { .text($0) }))) }
        return .flowMapping(pairs)
    }

    /// A number as a quantity writes it: no `.0`.
    static func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
}
