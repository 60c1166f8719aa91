import CGateKitHeader
import Glibc
import GateKitJWS
import GateKitLedger
import GateKitLedgerSync
import GateKitPermissions
import GateKitSupport

/// Bytes of `gatekit_ledger_query` per version (2 added `refresh_budget_ms`).
private let ledgerQuerySizes = [MemoryLayout<gatekit_ledger_query>.offset(of: \.refresh_budget_ms) ?? MemoryLayout<gatekit_ledger_query>.size,
                                MemoryLayout<gatekit_ledger_query>.size]
/// Bytes of `gatekit_entitlement` per version (the caller's out struct; 2 added `stale`).
private let entitlementSizes = [MemoryLayout<gatekit_entitlement>.offset(of: \.stale) ?? MemoryLayout<gatekit_entitlement>.size,
                                MemoryLayout<gatekit_entitlement>.size]

/// The answer to an entitlement question, asking Apple first when the query allows it.
private func entitlement(_ store: OpaquePointer?, _ q: UnsafePointer<gatekit_ledger_query>?, _ customer: UnsafePointer<CChar>?,
                         _ productOrGroup: UnsafePointer<CChar>?, naming: Bool) throws(GateKitError) -> Entitlement {
    let handle = try StoreHandle.from(store)
    let question = try query(q)
    let (scope, instant) = (question.scope, question.instant)
    let customer = try Arguments.string(customer, "customer")
    let filter = try Arguments.string(productOrGroup, "product_or_group")
    guard question.refreshBudgetMs > 0 else {
        return question.byAppUser ? try handle.ledger.entitlement(appUserID: customer, to: filter, scope: scope, at: instant, naming: naming)
            : try handle.ledger.entitlement(customer: customer, to: filter, scope: scope, at: instant, naming: naming)
    }
    let refreshers = Array(handle.refreshers.withLock { $0 }.values)
    return question.byAppUser
        ? try RefreshBeforeDeny.entitlement(handle.ledger, refreshers: refreshers, budgetMs: question.refreshBudgetMs,
                                            appUserID: customer, to: filter, scope: scope, at: instant, naming: naming)
        : try RefreshBeforeDeny.entitlement(handle.ledger, refreshers: refreshers, budgetMs: question.refreshBudgetMs,
                                            customer: customer, to: filter, scope: scope, at: instant, naming: naming)
}

/// A query of any known version.
/// A `gatekit_ledger_query` checked (shared with the insight exports).
struct Question {
    let scope: LedgerScope
    let instant: LedgerInstant
    /// 0: never ask Apple first.
    let refreshBudgetMs: Int64
    /// The customer argument names an app account (GATEKIT_LEDGER_APP_USER).
    let byAppUser: Bool
}

func query(_ p: UnsafePointer<gatekit_ledger_query>?) throws(GateKitError) -> Question {
    let q = try Arguments.versioned(p, sizes: ledgerQuerySizes, zero: gatekit_ledger_query(), initializer: "ledger_query_init")
    let known = GATEKIT_LEDGER_TEST_SIGNED | GATEKIT_LEDGER_APP_USER
    guard q.flags & ~known == 0 else {
        throw .invalid("query->flags has unknown bits 0x\(String(q.flags & ~known, radix: 16))")
    }
    guard q.environment != nil else { throw .invalid("query->environment is NULL") }
    let environment = try AppStoreEnvironment.named(try Arguments.string(q.environment, "query->environment"))
    guard q.at_ms >= 0 else { throw .invalid("query->at_ms is negative") }
    guard (0...600_000).contains(q.refresh_budget_ms) else { throw .invalid("query->refresh_budget_ms must be 0 to 600000") }
    return Question(scope: LedgerScope(environment: environment, testData: q.flags & GATEKIT_LEDGER_TEST_SIGNED != 0),
                    instant: q.at_ms == 0 ? .now : .asOf(Int64(q.at_ms)), refreshBudgetMs: q.refresh_budget_ms,
                    byAppUser: q.flags & GATEKIT_LEDGER_APP_USER != 0)
}

func ledger(_ store: OpaquePointer?) throws(GateKitError) -> Ledger {
    try StoreHandle.from(store).ledger
}

/// Hands the report to the caller (when asked) and returns its outcome.
func reported(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ report: () throws(GateKitError) -> IngestReport) throws(GateKitError) -> Int32 {
    out?.pointee = nil
    let result = try report()
    if let out { out.pointee = try Owned.cString(result.json) }
    return result.outcome.rawValue
}

private func ingest(_ function: StaticString, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                    _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?,
                    _ body: (Ledger, UnsafeRawBufferPointer, JWSOptions) throws(GateKitError) -> IngestReport) -> Int32 {
    exportBoundary(function) { () throws(GateKitError) in
        out?.pointee = nil
        let ledger = try ledger(store)
        let text = try jwsBytes(jws)
        let options = try jwsOptions(options)
        return try reported(out) { () throws(GateKitError) in try body(ledger, text, options) }
    }
}

@c(ledger_query_init)
public func ledgerQueryInit(_ query: UnsafeMutablePointer<gatekit_ledger_query>?, _ version: UInt32) -> Int32 {
    exportBoundary("ledger_query_init") { () throws(GateKitError) in
        try Arguments.initialiseVersioned(query, version: version, sizes: ledgerQuerySizes, "gatekit_ledger_query")
    }
}

@c(ledger_ingest_notification)
public func ledgerIngestNotification(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                     _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    ingest("ledger_ingest_notification", out, store, jws, options) { (ledger, text, options) throws(GateKitError) in try ledger.ingestNotification(text, options: options) }
}

@c(ledger_ingest_notification_any)
public func ledgerIngestNotificationAny(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                        _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<UnsafePointer<gatekit_jws_options>?>?,
                                        _ count: Int) -> Int32 {
    exportBoundary("ledger_ingest_notification_any") { () throws(GateKitError) in
        out?.pointee = nil
        let ledger = try ledger(store)
        let text = try jwsBytes(jws)
        guard let options else { throw .invalid("options is NULL") }
        guard (1...Ledger.maximumEnvironments).contains(count) else { throw .invalid("count must be 1 to \(Ledger.maximumEnvironments), not \(count)") }
        var choices: [JWSOptions] = []
        for i in 0..<count {
            guard let o = options[i] else { throw .invalid("options[\(i)] is NULL") }
            choices.append(try jwsOptions(o))
        }
        return try reported(out) { () throws(GateKitError) in try ledger.ingestNotification(text, choosingFrom: choices) }
    }
}

@c(ledger_ingest_transaction)
public func ledgerIngestTransaction(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                    _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    ingest("ledger_ingest_transaction", out, store, jws, options) { (ledger, text, options) throws(GateKitError) in try ledger.ingestTransaction(text, options: options) }
}

@c(ledger_ingest_renewal_info)
public func ledgerIngestRenewalInfo(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                    _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    ingest("ledger_ingest_renewal_info", out, store, jws, options) { (ledger, text, options) throws(GateKitError) in try ledger.ingestRenewalInfo(text, options: options) }
}

@c(ledger_ingest_app_transaction)
public func ledgerIngestAppTransaction(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                       _ jws: UnsafePointer<CChar>?, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    ingest("ledger_ingest_app_transaction", out, store, jws, options) { (ledger, text, options) throws(GateKitError) in try ledger.ingestAppTransaction(text, options: options) }
}

/// Most items, and most bytes of signed text, one ledger_ingest_batch call takes: the bound on
/// the memory one call holds.
private let maximumBatch = 10_000
private let maximumBatchBytes = 64 << 20

@c(ledger_ingest_batch)
public func ledgerIngestBatch(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ rawKind: Int32,
                              _ jws: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ options: UnsafePointer<gatekit_jws_options>?) -> Int32 {
    // The whole call, the export's own first-use work included, is a fork section: a fork
    // meanwhile would hand the child a runtime lock this thread holds (Hardening IV, 21a).
    exportBoundary("ledger_ingest_batch") { () throws(GateKitError) in
        try ForkGate.section { () throws(GateKitError) in
            out?.pointee = nil
            let ledger = try ledger(store)
            let kind = try jwsKind(rawKind)
            guard count >= 0, count <= maximumBatch else { throw .invalid("count is \(UInt(bitPattern: count)); at most \(maximumBatch) items") }
            guard jws != nil || count == 0 else { throw .invalid("jws is NULL but count is \(count)") }
            let options = try jwsOptions(options)
            var texts: [UnsafeRawBufferPointer] = []
            texts.reserveCapacity(count)
            var total = 0
            for i in 0..<count {
                do throws(GateKitError) {
                    texts.append(try jwsBytes(jws?[i]))
                } catch {
                    throw GateKitError(error.code, "jws[\(i)]: \(error.message)")
                }
                total += texts[i].count
                guard total <= maximumBatchBytes else {
                    throw GateKitError(.ETOOLARGE, "the batch holds more than \(maximumBatchBytes >> 20) MiB of signed text by jws[\(i)]; split it")
                }
            }
            return try batchReported(out, try ledger.ingestBatch(texts, kind: kind, options: options))
        }
    }
}

/// A batch's reports to the caller (when asked), in input order, each the single item's report
/// or its error; returns how many items were recorded (new or superseded).
func batchReported(_ out: OutString?, _ results: [Result<IngestReport, GateKitError>]) throws(GateKitError) -> Int32 {
    if let out {
        let items: [JSONValue] = results.map { result in
            switch result {
            case let .success(report):
                return (try? JSONParser.parse(Array(report.json.utf8))) ?? .null
            case let .failure(error):
                return .object([("error", .number(Int64(error.code.rawValue))), ("message", .string(error.message))])
            }
        }
        out.pointee = try Owned.cString(JSONDocument.list("results", items))
    }
    return Int32(results.count { if case let .success(r) = $0 { r.outcome != .duplicate } else { false } })
}

@c(ledger_ingest_receipt)
public func ledgerIngestReceipt(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                _ data: UnsafeRawPointer?, _ len: Int, _ options: UnsafePointer<gatekit_receipt_options>?) -> Int32 {
    exportBoundary("ledger_ingest_receipt") { () throws(GateKitError) in
        out?.pointee = nil
        let ledger = try ledger(store)
        let input = try Arguments.buffer(data, try receiptLength(len), "data")
        let options = try receiptOptions(options)
        return try reported(out) { () throws(GateKitError) in try ledger.ingestReceipt(input, options: options) }
    }
}

@c(ledger_is_entitled)
public func ledgerIsEntitled(_ out: UnsafeMutablePointer<gatekit_entitlement>?, _ store: OpaquePointer?, _ q: UnsafePointer<gatekit_ledger_query>?,
                             _ customer: UnsafePointer<CChar>?, _ productOrGroup: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_is_entitled") { () throws(GateKitError) in
        let outBytes = try out.map { (p) throws(GateKitError) in
            try Arguments.outputBytes(p, sizes: entitlementSizes, constant: "GATEKIT_ENTITLEMENT_VERSION")
        }
        let e = try entitlement(store, q, customer, productOrGroup, naming: false)
        if let out, let outBytes {
            var filled = gatekit_entitlement()
            filled.version = UnsafeRawPointer(out).loadUnaligned(as: UInt32.self)
            filled.entitled = e.isEntitled ? 1 : 0
            filled.reason = e.reason.rawValue
            filled.status = Int32(truncatingIfNeeded: e.status?.rawValue ?? 0)
            filled.family_shared = e.familyShared ? 1 : 0
            filled.since_ms = e.sinceMs ?? 0
            filled.until_ms = e.untilMs ?? 0
            filled.stale = e.stale ? 1 : 0
            Arguments.fill(out, with: filled, bytes: outBytes)
        }
        return e.isEntitled ? 1 : 0
    }
}

@c(ledger_entitlement)
public func ledgerEntitlement(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ q: UnsafePointer<gatekit_ledger_query>?,
                              _ customer: UnsafePointer<CChar>?, _ productOrGroup: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_entitlement") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let e = try entitlement(store, q, customer, productOrGroup, naming: true)
        let attribution = try ledger(store).attribution(of: e, scope: try query(q).scope)
        var members: [(String, JSONValue)] = [("version", .number(JSONDocument.version))]
        if case let .object(rest) = e.json(attribution: attribution) { members += rest }
        out.pointee = try Owned.cString(JSONWriter.serialize(.object(members)))
        return e.isEntitled ? 1 : 0
    }
}

@c(ledger_active)
public func ledgerActive(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ q: UnsafePointer<gatekit_ledger_query>?,
                         _ customer: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_active") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let question = try query(q)
        let who = try Arguments.string(customer, "customer")
        let list = question.byAppUser ? try ledger(store).active(appUserID: who, scope: question.scope, at: question.instant)
            : try ledger(store).active(customer: who, scope: question.scope, at: question.instant)
        let ledger = try ledger(store)
        var answers: [JSONValue] = []
        for e in list { answers.append(e.json(attribution: try ledger.attribution(of: e, scope: question.scope))) }
        out.pointee = try Owned.cString(JSONDocument.list("entitlements", answers))
        return GATEKIT_OK
    }
}

@c(ledger_subscription_status)
public func ledgerSubscriptionStatus(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                     _ q: UnsafePointer<gatekit_ledger_query>?, _ customer: UnsafePointer<CChar>?, _ group: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_subscription_status") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let question = try query(q)
        let who = try Arguments.string(customer, "customer")
        let group = try Arguments.optionalString(group, "group")
        let json = question.byAppUser
            ? try ledger(store).subscriptionStatuses(appUserID: who, group: group, scope: question.scope, at: question.instant)
            : try ledger(store).subscriptionStatuses(customer: who, group: group, scope: question.scope, at: question.instant)
        out.pointee = try Owned.cString(json)
        return GATEKIT_OK
    }
}

@c(ledger_intro_eligible)
public func ledgerIntroEligible(_ store: OpaquePointer?, _ q: UnsafePointer<gatekit_ledger_query>?, _ customer: UnsafePointer<CChar>?,
                                _ group: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_intro_eligible") { () throws(GateKitError) in
        let question = try query(q)
        let who = try Arguments.string(customer, "customer")
        let group = try Arguments.string(group, "group")
        return try (question.byAppUser
            ? ledger(store).isEligibleForIntroductoryOffer(appUserID: who, group: group, scope: question.scope, at: question.instant)
            : ledger(store).isEligibleForIntroductoryOffer(customer: who, group: group, scope: question.scope, at: question.instant)) ? 1 : 0
    }
}

@c(ledger_history)
public func ledgerHistory(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                          _ q: UnsafePointer<gatekit_ledger_query>?, _ customer: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_history") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let question = try query(q)
        let who = try Arguments.optionalString(customer, "customer")
        if question.byAppUser, who == nil { throw .invalid("GATEKIT_LEDGER_APP_USER needs the app account's id as customer") }
        let json = try question.byAppUser ? ledger(store).historyJSON(appUserID: who ?? "", scope: question.scope)
            : ledger(store).historyJSON(customer: who, scope: question.scope)
        out.pointee = try Owned.cString(json)
        return GATEKIT_OK
    }
}

@c(ledger_declare_catalog)
public func ledgerDeclareCatalog(_ store: OpaquePointer?, _ catalogJSON: UnsafePointer<CChar>?, _ effectiveMs: Int64) -> Int32 {
    exportBoundary("ledger_declare_catalog") { () throws(GateKitError) in
        guard let bytes = try Arguments.optionalBytes(catalogJSON, "catalog_json", limit: ProductCatalog.maximumLength) else {
            throw .invalid("catalog_json is NULL")
        }
        guard effectiveMs >= 0 else { throw .invalid("effective_ms is negative") }
        try ledger(store).declareCatalog(try ProductCatalog(json: bytes), effectiveMs: effectiveMs == 0 ? nil : effectiveMs)
        return GATEKIT_OK
    }
}

@c(ledger_reason_name)
public func ledgerReasonName(_ reason: Int32) -> UnsafePointer<CChar>? {
    Entitlement.Reason(rawValue: reason).map { UnsafeRawPointer($0.staticName.utf8Start).assumingMemoryBound(to: CChar.self) }
}

@c(ledger_reason_entitles)
public func ledgerReasonEntitles(_ reason: Int32) -> Int32 {
    Entitlement.Reason(rawValue: reason)?.entitles == true ? 1 : 0
}

@c(ledger_declare_catalog_report)
public func ledgerDeclareCatalogReport(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                                       _ catalogJSON: UnsafePointer<CChar>?, _ effectiveMs: Int64, _ flags: UInt32) -> Int32 {
    exportBoundary("ledger_declare_catalog_report") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        guard let bytes = try Arguments.optionalBytes(catalogJSON, "catalog_json", limit: ProductCatalog.maximumLength) else {
            throw .invalid("catalog_json is NULL")
        }
        guard effectiveMs >= 0 else { throw .invalid("effective_ms is negative") }
        guard flags & ~GATEKIT_CATALOG_CHECK_ONLY == 0 else { throw .invalid("flags has unknown bits 0x\(String(flags & ~GATEKIT_CATALOG_CHECK_ONLY, radix: 16))") }
        let report = try ledger(store).declareCatalog(try ProductCatalog(json: bytes), effectiveMs: effectiveMs == 0 ? nil : effectiveMs,
                                                      checkOnly: flags & GATEKIT_CATALOG_CHECK_ONLY != 0)
        out.pointee = try Owned.cString(JSONWriter.serialize(report.json))
        return GATEKIT_OK
    }
}

@c(ledger_catalog)
public func ledgerCatalog(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ atMs: Int64) -> Int32 {
    exportBoundary("ledger_catalog") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        guard atMs >= 0 else { throw .invalid("at_ms is negative") }
        let entry = try ledger(store).catalog(at: atMs == 0 ? .now : .asOf(atMs))
        var members: [(String, JSONValue)] = [("version", .number(JSONDocument.version))]
        if let entry { members += [("effective", .number(entry.effectiveMs)), ("declared", .number(entry.declaredMs))] }
        if case let .object(rest) = (entry?.catalog ?? .empty).json { members += rest }
        out.pointee = try Owned.cString(JSONWriter.serialize(.object(members)))
        return GATEKIT_OK
    }
}


// MARK: app accounts

private func linkArguments(_ store: OpaquePointer?, _ environment: UnsafePointer<CChar>?, _ appUserID: UnsafePointer<CChar>?,
                           _ customer: UnsafePointer<CChar>?) throws(GateKitError) -> (Ledger, AppStoreEnvironment, String, String) {
    (try ledger(store), try AppStoreEnvironment.named(try Arguments.string(environment, "environment")),
     try Arguments.string(appUserID, "app_user_id"), try Arguments.string(customer, "customer"))
}

@c(ledger_link)
public func ledgerLink(_ store: OpaquePointer?, _ environment: UnsafePointer<CChar>?, _ appUserID: UnsafePointer<CChar>?,
                       _ customer: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_link") { () throws(GateKitError) in
        let (ledger, environment, user, customer) = try linkArguments(store, environment, appUserID, customer)
        return try ledger.link(appUserID: user, customer: customer, environment: environment).rawValue
    }
}

@c(ledger_unlink)
public func ledgerUnlink(_ store: OpaquePointer?, _ environment: UnsafePointer<CChar>?, _ appUserID: UnsafePointer<CChar>?,
                         _ customer: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("ledger_unlink") { () throws(GateKitError) in
        let (ledger, environment, user, customer) = try linkArguments(store, environment, appUserID, customer)
        return try ledger.unlink(appUserID: user, customer: customer, environment: environment) ? 1 : 0
    }
}

@c(ledger_links)
public func ledgerLinks(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ environment: UnsafePointer<CChar>?,
                        _ appUserID: UnsafePointer<CChar>?, _ customer: UnsafePointer<CChar>?, _ atMs: Int64) -> Int32 {
    exportBoundary("ledger_links") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        let environment = try AppStoreEnvironment.named(try Arguments.string(environment, "environment"))
        guard atMs >= 0 else { throw .invalid("at_ms is negative") }
        out.pointee = try Owned.cString(try ledger(store).linksJSON(appUserID: try Arguments.optionalString(appUserID, "app_user_id"),
                                                                    customer: try Arguments.optionalString(customer, "customer"),
                                                                    environment: environment, at: atMs == 0 ? .now : .asOf(atMs)))
        return GATEKIT_OK
    }
}

// MARK: the change feed

@c(ledger_changes)
public func ledgerChanges(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?, _ afterSeq: Int64,
                          _ limit: Int32) -> Int32 {
    exportBoundary("ledger_changes") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_json")
        out.pointee = nil
        out.pointee = try Owned.cString(try ledger(store).changesJSON(after: afterSeq, limit: Int(limit)))
        return GATEKIT_OK
    }
}

@c(ledger_wait_changes)
public func ledgerWaitChanges(_ store: OpaquePointer?, _ afterSeq: Int64, _ timeoutMs: Int32) -> Int32 {
    exportBoundary("ledger_wait_changes") { () throws(GateKitError) in
        try ledger(store).waitForChanges(after: afterSeq, timeoutMilliseconds: Int(timeoutMs)) ? 1 : 0
    }
}
