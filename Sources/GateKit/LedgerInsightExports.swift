import CGateKitHeader
import GateKitLedger
import GateKitSupport

// The C ABI of <gatekit/ledger_insight.h>: subscription metrics and the ledger's report.

private func metricsRequest(_ q: UnsafePointer<gatekit_ledger_query>?, _ fromMs: Int64, _ toMs: Int64,
                            _ granularity: Int32, _ dimension: Int32) throws(GateKitError) -> MetricsRequest {
    let question = try query(q)
    guard !question.byAppUser else { throw .invalid("GATEKIT_LEDGER_APP_USER names a customer; metrics are the environment's") }
    let dimensions: [Int32: MetricsRequest.Dimension] = [
        GATEKIT_METRICS_ALL: .all, GATEKIT_METRICS_BY_PRODUCT: .product, GATEKIT_METRICS_BY_GROUP: .group,
        GATEKIT_METRICS_BY_ENTITLEMENT: .entitlement, GATEKIT_METRICS_BY_STOREFRONT: .storefront, GATEKIT_METRICS_BY_CURRENCY: .currency,
        GATEKIT_METRICS_BY_STORE: .store,
    ]
    guard let split = dimensions[dimension] else { throw .invalid("dimension must be GATEKIT_METRICS_ALL or a GATEKIT_METRICS_BY_* value, not \(dimension)") }
    return try MetricsRequest(scope: question.scope, from: fromMs, to: toMs, granularity: try granularityNamed(granularity),
                              dimension: split, asOf: question.instant)
}

private func granularityNamed(_ granularity: Int32) throws(GateKitError) -> MetricsRequest.Granularity {
    switch granularity {
    case GATEKIT_METRICS_DAY: return .day
    case GATEKIT_METRICS_WEEK: return .week
    case GATEKIT_METRICS_MONTH: return .month
    default: throw .invalid("granularity must be GATEKIT_METRICS_DAY, _WEEK or _MONTH, not \(granularity)")
    }
}

@c(ledger_metrics)
public func ledgerMetrics(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                          _ q: UnsafePointer<gatekit_ledger_query>?, _ fromMs: Int64, _ toMs: Int64,
                          _ granularity: Int32, _ dimension: Int32) -> Int32 {
    // The whole call, the export's own first-use work included, is a fork section: a fork
    // meanwhile would hand the child a runtime lock this thread holds (Hardening IV, 21a).
    exportBoundary("ledger_metrics") { () throws(GateKitError) in
        try ForkGate.section { () throws(GateKitError) in
            let out = try Arguments.out(out, "out_json")
            out.pointee = nil
            let request = try metricsRequest(q, fromMs, toMs, granularity, dimension)
            out.pointee = try Owned.cString(try ledger(store).metrics(request))
            return GATEKIT_OK
        }
    }
}

@c(ledger_metrics_refresh)
public func ledgerMetricsRefresh(_ store: OpaquePointer?, _ q: UnsafePointer<gatekit_ledger_query>?) -> Int32 {
    exportBoundary("ledger_metrics_refresh") { () throws(GateKitError) in
        try ForkGate.section { () throws(GateKitError) in
            let question = try query(q)
            guard !question.byAppUser else { throw .invalid("GATEKIT_LEDGER_APP_USER names a customer; the metrics' roll-up is the environment's") }
            return try ledger(store).refreshMetrics(question.scope) ? 1 : 0
        }
    }
}

@c(ledger_report)
public func ledgerReport(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ store: OpaquePointer?,
                         _ q: UnsafePointer<gatekit_ledger_query>?, _ fromMs: Int64, _ toMs: Int64,
                         _ granularity: Int32, _ customer: UnsafePointer<CChar>?) -> Int32 {
    // The whole call, the export's own first-use work included, is a fork section: a fork
    // meanwhile would hand the child a runtime lock this thread holds (Hardening IV, 21a).
    exportBoundary("ledger_report") { () throws(GateKitError) in
        try ForkGate.section { () throws(GateKitError) in
            let out = try Arguments.out(out, "out_html")
            out.pointee = nil
            let question = try query(q)
            let who = try Arguments.optionalString(customer, "customer")
            if question.byAppUser, who == nil { throw .invalid("GATEKIT_LEDGER_APP_USER needs the app account's id as customer") }
            let request = try MetricsRequest(scope: question.scope, from: fromMs, to: toMs, granularity: try granularityNamed(granularity),
                                             asOf: question.instant)
            let ledger = try ledger(store)
            let html: String
            switch (who, question.byAppUser) {
            case (nil, _): html = try ledger.report(request)
            case let (user?, true): html = try ledger.customerReport(appUserID: user, request: request)
            case let (customer?, false): html = try ledger.customerReport(customer: customer, request: request)
            }
            out.pointee = try Owned.cString(html)
            return GATEKIT_OK
        }
    }
}
