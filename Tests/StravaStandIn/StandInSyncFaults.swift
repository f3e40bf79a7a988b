import FlyingFox
import Foundation

/// Faults for the activity listing, and `GET /api/v3/activities/{id}`: kept apart from the rest of
/// the stand-in so the listing's tests read in one place.
public struct SyncFaults: Sendable {
    /// Request number (to `/api/v3/athlete/activities`, 1-based since `resetCounts`) → a body answered with 200 instead.
    var bodies: [Int: String] = [:]
    /// Request number → a change to the activities made just before that request is answered.
    var changes: [Int: @Sendable (inout [StandInActivity]) -> Void] = [:]
    /// Activity ids `/activities/{id}` answers with this status instead of looking them up.
    var detailStatus: [Int64: Int] = [:]
    /// `/activities/{id}` requests, in order.
    var detailRequests: [Int64] = []
}

extension StravaStandIn {
    static let listPath = "/api/v3/athlete/activities"
    static let detailPrefix = "/api/v3/activities/"

    /// The `n`th list request is answered `200 OK` with `body` (say `[]`), once.
    public func answerListing(onRequest n: Int, with body: String) { syncFaults.bodies[n] = body }

    /// Just before the `n`th list request is answered, `change` is applied to the activities
    /// (as a rider deleting activities while a sync pages through them).
    public func changeActivities(beforeRequest n: Int, _ change: @escaping @Sendable (inout [StandInActivity]) -> Void) {
        syncFaults.changes[n] = change
    }

    /// `/activities/{id}` answers `status` for `id` (500, 429, or 200 for an activity not listed).
    public func answerDetail(of id: Int64, with status: Int) { syncFaults.detailStatus[id] = status }

    /// Forgets the listing's faults and the detail's answers that have not fired.
    public func clearListingFaults() { syncFaults = SyncFaults() }

    /// The ids `/activities/{id}` was asked about, in order.
    public var detailRequests: [Int64] { syncFaults.detailRequests }

    /// Called by the API handler once a request is authorised: the listing's faults, and the
    /// activity detail. Nil lets the handler answer as usual.
    func syncFaultResponse(_ request: HTTPRequest, headers: HTTPHeaders) -> HTTPResponse? {
        if request.path == Self.listPath {
            let n = requests(to: Self.listPath)
            if let change = syncFaults.changes.removeValue(forKey: n) { change(&activities) }
            if let body = syncFaults.bodies.removeValue(forKey: n) { return Self.answer(200, body, headers) }
            return nil
        }
        guard request.path.hasPrefix(Self.detailPrefix) else { return nil }
        guard let id = Int64(request.path.dropFirst(Self.detailPrefix.count)) else {
            return Self.answer(404, #"{"message":"Record Not Found","errors":[{"resource":"Activity","field":"id","code":"invalid"}]}"#, headers)
        }
        syncFaults.detailRequests.append(id)
        if let status = syncFaults.detailStatus[id] {
            return Self.answer(
                status, status == 200 ? Self.detailJSON(id: id, start: 1_700_000_000, athleteID: athleteID) : #"{"message":"Error","errors":[]}"#, headers)
        }
        guard let a = activities.first(where: { $0.id == id }) else {
            // Strava's 404 body is not documented; clients decide on the status alone.
            return Self.answer(404, #"{"message":"Record Not Found","errors":[{"resource":"Activity","field":"id","code":"invalid"}]}"#, headers)
        }
        return Self.answer(200, Self.detailJSON(id: a.id, start: a.start, athleteID: athleteID), headers)
    }

    /// A DetailedActivity, cut down to the fields a client might check.
    static func detailJSON(id: Int64, start: Int64, athleteID: Int64) -> String {
        #"{"id":\#(id),"resource_state":3,"athlete":{"id":\#(athleteID),"resource_state":1},"start_date":"\#(StandInActivity.iso(start))","description":"","calories":512.0}"#
    }

    static func answer(_ status: Int, _ body: String, _ headers: HTTPHeaders) -> HTTPResponse {
        var h = headers
        h[HTTPHeader("Content-Type")] = "application/json; charset=utf-8"
        return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: phrase(status)), headers: h, body: Data(body.utf8))
    }
}
