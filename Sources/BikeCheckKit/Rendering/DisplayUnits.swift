import Foundation

/// What the JSON outputs say of their numbers: SI (distances and climb in metres, times in
/// seconds), whatever the garage's `units:` is. Encoded as `"units": "si"`.
package enum JSONUnits: String, Sendable, Codable { case si }

/// The rider's units (`units:` in garage.yaml) for what people read: every renderer of text,
/// CSV, Markdown, HTML and calendars turns the reports' SI figures (metres, seconds) into them
/// here, and only here. JSON stays SI.
extension UnitSystem {
    /// `km` or `mi`.
    package var distanceUnit: String {
        switch self {
        case .metric: "km"
        case .imperial: "mi"
        }
    }

    /// Metres in one `distanceUnit`.
    package var distanceSize: Double {
        switch self {
        case .metric: 1000
        case .imperial: 1609.344
        }
    }

    /// Climb: `m` or `ft`.
    package var climbUnit: String {
        switch self {
        case .metric: "m"
        case .imperial: "ft"
        }
    }

    /// Metres in one `climbUnit`.
    package var climbSize: Double {
        switch self {
        case .metric: 1
        case .imperial: 0.3048
        }
    }

    /// Metres as kilometres or miles.
    package func distance(_ metres: Double) -> Double { metres / distanceSize }

    /// Metres climbed as metres or feet.
    package func climb(_ metres: Double) -> Double { metres / climbSize }

    /// A distance in `distanceUnit` to a tenth, without the unit: `1234.5`.
    package func distanceText(_ metres: Double) -> String { ReportNumber.fixed(distance(metres), 1) }

    /// Climb in `climbUnit`, whole: `850`.
    package func climbText(_ metres: Double) -> String { ReportNumber.fixed(climb(metres), 0) }

    /// `per 1000 km` or `per 1000 mi`: an amount spread over metres ridden, to the cent.
    package func per1000(_ amount: Decimal, metres: Double) -> Decimal? {
        metres > 0 ? CostReport.rate(amount, per: metres / (distanceSize * 1000)) : nil
    }

    /// Whether a quantity reads as written: anything but a distance, or a distance written in
    /// these units (`1500 km` for metric, `900 mi` for imperial).
    func readsAsWritten(_ measure: Measure, unitSize: Double) -> Bool { measure != .distance || unitSize == distanceSize }
    func readsAsWritten(_ limit: LimitStatus) -> Bool { readsAsWritten(limit.measure, unitSize: limit.unitSize) }

    /// A quantity from the files as the rider reads it: as written when `readsAsWritten`, else in
    /// these units with the written form after it, so the file's words stay in sight:
    /// `932 mi (1500 km)`.
    package func quantityText(_ q: Quantity) -> String { text(q.text, measure: q.measure, unitSize: q.unitSize, amount: q.amount) }

    /// A limit as the rider reads it, as `quantityText` does.
    package func limitText(_ limit: LimitStatus) -> String { text(limit.every, measure: limit.measure, unitSize: limit.unitSize, amount: limit.limit) }

    private func text(_ written: String, measure: Measure, unitSize: Double, amount: Double) -> String {
        readsAsWritten(measure, unitSize: unitSize) ? written : "\(Self.amount(distance(amount))) \(distanceUnit) (\(written))"
    }

    /// How much of a limit is used, in the unit `limitText` shows: `412`, `6.8`.
    package func usedText(_ limit: LimitStatus) -> String {
        Self.amount(readsAsWritten(limit) ? limit.used / limit.unitSize : distance(limit.used))
    }

    /// An amount beside its limit: whole from 100, else to a tenth without a trailing `.0`.
    static func amount(_ v: Double) -> String {
        if v >= 100 { return String(Int(v.rounded())) }
        let tenths = (v * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
