import GateKitPlayData
import GateKitSupport

/// Reading Google's voided purchases list through the client (the page itself is data,
/// `VoidedPurchasesPage`).
extension VoidedPurchasesPage {
    /// Asks for the page after `pageToken`, or the first page of voids from `startMs`. No endTime:
    /// Google's default is its own now (one in its future is refused).
    package static func read(_ client: PlayDeveloperClient, startMs: Int64, pageToken: String?,
                             withinMilliseconds: Int?) throws(GateKitError) -> VoidedPurchasesPage {
        var query: [(String, JSONValue)] = [("type", .number(1)), ("maxResults", .number(Int64(maximumEntries)))]
        if let pageToken { query.append(("token", .string(pageToken))) } else { query.append(("startTime", .number(startMs))) }
        switch try client.send(.voidedPurchases(query: Array(JSONWriter.serialize(.object(query)).utf8)), withinMilliseconds: withinMilliseconds) {
        case let .success(answer): return try VoidedPurchasesPage(body: Array((answer.body ?? "{}").utf8), serverDate: answer.serverDate)
        case let .failure(failure): throw failure.error("voidedpurchases.list")
        }
    }
}
