import Diagnostics

/// Where an id is written across a loaded garage: its definition and every reference to it, as
/// located by the load (`Located` values, interval keys), and the file it names when the id is a
/// file's name. What renaming it must change (the language server's `rename`).
package struct IDReferences: Sendable {
    /// What kind of id.
    package enum Kind: Sendable, Equatable {
        /// An interval of `owner`: a template (`templates/ID.yaml`), a bike or a part. An
        /// interval a bike or part has from a template belongs to the template.
        case interval(owner: Owner)
        case template
        case bike
        /// A part: its file's name, written nowhere else.
        case part
    }

    /// What an interval belongs to.
    package enum Owner: Sendable, Equatable {
        case template(TemplateID)
        case bike(BikeID)
        case part(PartID)
    }

    /// The spans that hold the id (file relative to the garage, located range).
    package var spans: [(file: String, range: SourceRange)] = []
    /// The file named after the id, when it is one (`bikes/grail.yaml` for bike `grail`).
    package var file: String?

    /// The spans and file of `id`, a `kind`, in `garage`.
    package init(_ kind: Kind, _ id: String, in garage: Garage) {
        func add(_ location: SourceLocation) {
            if let range = location.range { spans.append((location.file, range)) }
        }
        func addUses(intervals: [IntervalSpec], log: [LogEntry], snoozes: [Snooze]) {
            for spec in intervals where spec.id.rawValue == id { add(spec.location) }
            for entry in log {
                for done in entry.done where done.value.rawValue == id { add(done.location) }
                for reading in entry.readings where reading.interval.value.rawValue == id { add(reading.interval.location) }
            }
            for snooze in snoozes where snooze.interval.value.rawValue == id { add(snooze.interval.location) }
        }
        switch kind {
        case .interval(.template(let template)):
            for spec in garage.templates.first(where: { $0.id == template })?.intervals ?? [] where spec.id.rawValue == id { add(spec.location) }
            for bike in garage.bikes where bike.bike.templates.contains(where: { $0.value == template }) {
                addUses(intervals: bike.bike.intervals, log: bike.bike.log, snoozes: bike.bike.snoozes)
            }
            for part in garage.parts where part.part.templates.contains(where: { $0.value == template }) {
                addUses(intervals: part.part.intervals, log: part.part.log, snoozes: part.part.snoozes)
            }
        case .interval(.bike(let bikeID)):
            if let bike = garage.bike(bikeID)?.bike { addUses(intervals: bike.intervals, log: bike.log, snoozes: bike.snoozes) }
        case .interval(.part(let partID)):
            if let part = garage.part(partID)?.part { addUses(intervals: part.intervals, log: part.log, snoozes: part.snoozes) }
        case .template:
            guard let template = garage.templates.first(where: { $0.id.rawValue == id }) else { return }
            file = template.location.file
            for bike in garage.bikes { for t in bike.bike.templates where t.value == template.id { add(t.location) } }
            for part in garage.parts { for t in part.part.templates where t.value == template.id { add(t.location) } }
        case .bike:
            guard let bike = garage.bike(BikeID(id))?.bike else { return }
            file = bike.location.file
            // As written: not the stretches a part spent on the bike through another part.
            for part in garage.parts { for mount in part.part.mounts where mount.via.isEmpty && mount.bike.value == bike.id { add(mount.bike.location) } }
            for ride in garage.rides where ride.bike.value == bike.id { add(ride.bike.location) }
        case .part:
            file = garage.part(PartID(id))?.part.location.file
            // The parts mounted on it (tyres on a wheelset) name it.
            for part in garage.parts { for mount in part.part.partMounts where mount.parent.value.rawValue == id { add(mount.parent.location) } }
        }
        spans.sort { ($0.file, $0.range.start.offset) < ($1.file, $1.range.start.offset) }
    }

    /// The owner of interval `id` as the file `relative` sees it: the template it comes from,
    /// else the bike or part of the file; in a template file, that template. Nil when the file's
    /// bike, part or template has no such interval.
    package static func owner(ofInterval id: String, seenFrom relative: String, in garage: Garage) -> Owner? {
        let parts = relative.split(separator: "/")
        guard parts.count == 2 else { return nil }
        let stem = GarageLoader.stem(String(parts[1]))
        let interval = IntervalID(id)
        switch parts[0] {
        case "templates":
            let template = TemplateID(stem)
            return garage.templates.first { $0.id == template }?.intervals.contains { $0.id == interval } == true ? .template(template) : nil
        case "bikes", "gear":
            guard let resolved = garage.bike(BikeID(stem))?.intervals.first(where: { $0.id == interval }) else { return nil }
            return resolved.template.map(Owner.template) ?? .bike(BikeID(stem))
        case "parts":
            guard let resolved = garage.part(PartID(stem))?.intervals.first(where: { $0.id == interval }) else { return nil }
            return resolved.template.map(Owner.template) ?? .part(PartID(stem))
        default: return nil
        }
    }
}
