import GateKitJWS
import GateKitSupport

/// One endpoint for both environments: App Store Connect lets a team point its Production and
/// Sandbox notification URLs at the same endpoint. The environment the payload names is read
/// before verification only to choose the options for it; those options then verify it with
/// that environment's rules (Production: the app Apple id), and the ledger keeps the two apart
/// as for any ingestion.
extension Ledger {
    /// At most one options per environment.
    public static let maximumEnvironments = 4

    public func ingestNotification<C: Collection>(_ text: C, choosingFrom options: [JWSOptions]) throws(GateKitError) -> IngestReport where C.Element == UInt8 {
        guard (1...Ledger.maximumEnvironments).contains(options.count) else { throw .invalid("give 1 to \(Ledger.maximumEnvironments) options, one per environment") }
        let environments = options.map(\.environment.rawValue)
        guard Set(environments).count == environments.count else { throw .invalid("two options are for the same environment: \(environments.joined(separator: ", "))") }
        let named = try JWSNotification(json: try CompactJWS.parseUnverified(text).payload).subject.environment
        guard let chosen = options.first(where: { $0.environment.rawValue == named }) else {
            throw GateKitError(.EJWS_ENVIRONMENT, "the notification is for \(named.map(Quoted.text) ?? "no environment"); this endpoint takes \(environments.joined(separator: " and "))")
        }
        return try ingestNotification(text, options: chosen)
    }
}
