import GateKitSupport

/// Google's answers in batches, recorded together by the core's batch (`LedgerBatch.swift`).
extension Ledger {
    /// Several Play answers (subscriptions or one-time products) of one package, each checked
    /// and read as the single-answer functions do, recorded in one durable transaction. An
    /// answer that is refused is reported in its place and skipped; a store failure records none.
    public func ingestPlayBatch(_ answers: [(answer: PlayAnswer, isSubscription: Bool)]) throws(GateKitError) -> [Result<IngestReport, GateKitError>] {
        guard let package = answers.first?.answer.packageName else { return [] }
        guard answers.allSatisfy({ $0.answer.packageName == package }) else {
            throw .invalid("a batch of Play answers is of one package; these name several")
        }
        return try verifyAndRecord(answers.count, alongside: .subjects([]), { (i) throws(GateKitError) in
            let (answer, isSubscription) = answers[i]
            return isSubscription ? try self.pendingPlaySubscription(answer, kind: .playSubscription) : try self.pendingPlayProduct(answer, kind: .playProduct)
        }, { (_) throws(GateKitError) in }).reports
    }
}
