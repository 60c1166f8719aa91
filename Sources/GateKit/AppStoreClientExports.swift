import CGateKitHeader
import Glibc
import GateKitAppStoreAPI
import GateKitSupport

/// Bytes of `gatekit_appstore_client_options` per version (2 added `user_agent`).
private let clientOptionsSizes = [MemoryLayout<gatekit_appstore_client_options>.offset(of: \.user_agent) ?? MemoryLayout<gatekit_appstore_client_options>.size,
                                  MemoryLayout<gatekit_appstore_client_options>.size]

/// A `char **` output of the C ABI.
public typealias OutString = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

@c(appstore_client_options_init)
public func appstoreClientOptionsInit(_ options: UnsafeMutablePointer<gatekit_appstore_client_options>?, _ version: UInt32) -> Int32 {
    exportBoundary("appstore_client_options_init") { () throws(GateKitError) in
        let rc = try Arguments.initialiseVersioned(options, version: version, sizes: clientOptionsSizes, "gatekit_appstore_client_options")
        guard let options else { return rc }
        let defaults = CTransport(defaults: AppStoreServerClient.Options(environment: .sandbox))
        options.pointee.timeout_ms = defaults.timeoutMs
        options.pointee.connect_timeout_ms = defaults.connectTimeoutMs
        options.pointee.max_retries = defaults.maxRetries
        options.pointee.max_retry_wait_ms = defaults.maxRetryWaitMs
        return rc
    }
}

@c(appstore_client_new)
public func appstoreClientNew(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ key: OpaquePointer?,
                              _ options: UnsafePointer<gatekit_appstore_client_options>?) -> Int32 {
    exportBoundary("appstore_client_new") { () throws(GateKitError) in
        let out = try Arguments.out(out)
        out.pointee = nil
        let key = try AppStoreKeyHandle.from(key).key
        let o = try Arguments.versioned(options, sizes: clientOptionsSizes, zero: gatekit_appstore_client_options(),
                                        initializer: "appstore_client_options_init")
        guard o.environment != nil else { throw .invalid("options->environment is NULL") }
        var core = AppStoreServerClient.Options(environment: try AppStoreEnvironment.named(try Arguments.string(o.environment, "options->environment")))
        try CTransport(baseURL: o.base_url, caFile: o.ca_file, timeoutMs: o.timeout_ms, connectTimeoutMs: o.connect_timeout_ms,
                       maxRetries: o.max_retries, maxRetryWaitMs: o.max_retry_wait_ms, userAgent: o.user_agent).apply(to: &core)
        core.verification = try o.verify.map { v throws(GateKitError) in try jwsOptions(v) }
        let client = try AppStoreServerClient(key: key, options: core)
        out.pointee = OpaquePointer(Unmanaged.passRetained(client).toOpaque())
        return GATEKIT_OK
    }
}

@c(appstore_client_free)
public func appstoreClientFree(_ client: OpaquePointer?) {
    guard let client else { return }
    Unmanaged<AppStoreServerClient>.fromOpaque(UnsafeRawPointer(client)).release()
}

/// The client behind a `gatekit_appstore_client *` (not retained).
func appStoreClient(_ client: OpaquePointer?) throws(GateKitError) -> AppStoreServerClient {
    guard let client else { throw .invalid("client is NULL") }
    return Unmanaged<AppStoreServerClient>.fromOpaque(UnsafeRawPointer(client)).takeUnretainedValue()
}

/// Sends one endpoint's request and fills the outputs as include/gatekit.h describes.
private func call(_ function: StaticString, _ client: OpaquePointer?, _ out: OutString?, _ decodedOut: OutString? = nil,
                  _ endpoint: () throws(GateKitError) -> APIEndpoint) -> Int32 {
    out?.pointee = nil
    decodedOut?.pointee = nil
    return exportBoundary(function) { () throws(GateKitError) in
        switch try appStoreClient(client).send(try endpoint()) {
        case let .success(answer):
            let body = try answer.body.map(Owned.cString)
            let decoded: UnsafeMutablePointer<CChar>?
            do throws(GateKitError) { decoded = try answer.decoded.map(Owned.cString) } catch {
                free(body)
                throw error
            }
            if let out { out.pointee = body } else { free(body) }
            if let decodedOut { decodedOut.pointee = decoded } else { free(decoded) }
            return GATEKIT_OK
        case let .failure(failure):
            if let out { out.pointee = try Owned.cString(failure.json) }
            throw GateKitError(.EAPPSTORE_API, failure.description)
        }
    }
}

private func text(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> String { try Arguments.string(p, name) }
private func optionalText(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> String? { try Arguments.optionalString(p, name) }

/// A request body: JSON text up to the endpoint limit (one byte more is read, to say it is too long).
private func body(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> [UInt8] {
    guard let p else { throw .invalid("\(name) is NULL") }
    let limit = APIEndpoint.maximumBodyLength
    let n = strnlen(p, limit + 1)
    guard n <= limit else { throw GateKitError(.ETOOLARGE, "\(name) is longer than \(limit) bytes") }
    return Array(UnsafeRawBufferPointer(start: p, count: n))
}

// MARK: transactions and subscriptions

@c(appstore_get_transaction_info)
public func appstoreGetTransactionInfo(_ out: OutString?, _ decoded: OutString?,
                                       _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_transaction_info", client, out, decoded) { () throws(GateKitError) in
        try .getTransactionInfo(transactionID: try text(id, "transaction_id"))
    }
}

@c(appstore_get_transaction_history)
public func appstoreGetTransactionHistory(_ out: OutString?, _ decoded: OutString?,
                                          _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ revision: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?, _ version: Int32) -> Int32 {
    call("appstore_get_transaction_history", client, out, decoded) { () throws(GateKitError) in
        try .getTransactionHistory(transactionID: try text(id, "transaction_id"), revision: try optionalText(revision, "revision"),
                                   request: request == nil ? nil : try body(request, "history_request_json"), version: Int(version))
    }
}

@c(appstore_get_all_subscription_statuses)
public func appstoreGetAllSubscriptionStatuses(_ out: OutString?, _ decoded: OutString?,
                                               _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ statuses: UnsafePointer<Int32>?, _ count: Int) -> Int32 {
    call("appstore_get_all_subscription_statuses", client, out, decoded) { () throws(GateKitError) in
        guard count >= 0, count <= 5 else { throw GateKitError(.ETOOLARGE, "count \(UInt(bitPattern: count)) is more than the 5 statuses Apple has") }
        guard count == 0 || statuses != nil else { throw .invalid("statuses is NULL with count \(count)") }
        let list = statuses.map { Array(UnsafeBufferPointer(start: $0, count: count)).map(Int.init) } ?? []
        return try .getAllSubscriptionStatuses(transactionID: try text(id, "transaction_id"), statuses: list)
    }
}

@c(appstore_get_refund_history)
public func appstoreGetRefundHistory(_ out: OutString?, _ decoded: OutString?,
                                     _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ revision: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_refund_history", client, out, decoded) { () throws(GateKitError) in
        try .getRefundHistory(transactionID: try text(id, "transaction_id"), revision: try optionalText(revision, "revision"))
    }
}

@c(appstore_look_up_order_id)
public func appstoreLookUpOrderID(_ out: OutString?, _ decoded: OutString?,
                                  _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_look_up_order_id", client, out, decoded) { () throws(GateKitError) in try .lookUpOrderID(try text(id, "order_id")) }
}

@c(appstore_get_app_transaction_info)
public func appstoreGetAppTransactionInfo(_ out: OutString?, _ decoded: OutString?,
                                          _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_app_transaction_info", client, out, decoded) { () throws(GateKitError) in
        try .getAppTransactionInfo(transactionID: try text(id, "transaction_id"))
    }
}

@c(appstore_finish_transaction)
public func appstoreFinishTransaction(_ out: OutString?,
                                      _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_finish_transaction", client, out) { () throws(GateKitError) in try .finishTransaction(transactionID: try text(id, "transaction_id")) }
}

@c(appstore_send_consumption_information)
public func appstoreSendConsumptionInformation(_ out: OutString?,
                                               _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_send_consumption_information", client, out) { () throws(GateKitError) in
        try .sendConsumptionInformation(transactionID: try text(id, "transaction_id"), request: try body(request, "request_json"))
    }
}

@c(appstore_send_consumption_data)
public func appstoreSendConsumptionData(_ out: OutString?,
                                        _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_send_consumption_data", client, out) { () throws(GateKitError) in
        try .sendConsumptionData(transactionID: try text(id, "transaction_id"), request: try body(request, "request_json"))
    }
}

@c(appstore_set_app_account_token)
public func appstoreSetAppAccountToken(_ out: OutString?,
                                       _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_set_app_account_token", client, out) { () throws(GateKitError) in
        try .setAppAccountToken(originalTransactionID: try text(id, "original_transaction_id"), request: request == nil ? nil : try body(request, "request_json"))
    }
}

@c(appstore_extend_subscription_renewal_date)
public func appstoreExtendSubscriptionRenewalDate(_ out: OutString?,
                                                  _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_extend_subscription_renewal_date", client, out) { () throws(GateKitError) in
        try .extendSubscriptionRenewalDate(originalTransactionID: try text(id, "original_transaction_id"), request: try body(request, "request_json"))
    }
}

@c(appstore_extend_renewal_date_for_all_active_subscribers)
public func appstoreExtendRenewalDateForAllActiveSubscribers(_ out: OutString?,
                                                             _ client: OpaquePointer?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_extend_renewal_date_for_all_active_subscribers", client, out) { () throws(GateKitError) in
        try .extendRenewalDateForAllActiveSubscribers(request: try body(request, "request_json"))
    }
}

@c(appstore_get_status_of_subscription_renewal_date_extensions)
public func appstoreGetStatusOfSubscriptionRenewalDateExtensions(_ out: OutString?,
                                                                 _ client: OpaquePointer?, _ requestID: UnsafePointer<CChar>?, _ product: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_status_of_subscription_renewal_date_extensions", client, out) { () throws(GateKitError) in
        try .getStatusOfSubscriptionRenewalDateExtensions(requestIdentifier: try text(requestID, "request_identifier"),
                                                          productID: try text(product, "product_id"))
    }
}

// MARK: notifications

@c(appstore_get_notification_history)
public func appstoreGetNotificationHistory(_ out: OutString?, _ decoded: OutString?,
                                           _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_notification_history", client, out, decoded) { () throws(GateKitError) in
        try .getNotificationHistory(paginationToken: try optionalText(token, "pagination_token"),
                                    request: try body(request, "notification_history_request_json"))
    }
}

@c(appstore_request_test_notification)
public func appstoreRequestTestNotification(_ out: OutString?, _ client: OpaquePointer?) -> Int32 {
    call("appstore_request_test_notification", client, out) { () throws(GateKitError) in .requestTestNotification() }
}

@c(appstore_get_test_notification_status)
public func appstoreGetTestNotificationStatus(_ out: OutString?, _ decoded: OutString?,
                                              _ client: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_test_notification_status", client, out, decoded) { () throws(GateKitError) in
        try .getTestNotificationStatus(token: try text(token, "test_notification_token"))
    }
}

// MARK: retention messaging

@c(appstore_upload_image)
public func appstoreUploadImage(_ out: OutString?,
                                _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ image: UnsafeRawPointer?, _ length: Int, _ size: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_upload_image", client, out) { () throws(GateKitError) in
        guard length >= 0, length <= APIEndpoint.maximumImageLength else {
            throw GateKitError(.ETOOLARGE, "image_len \(UInt(bitPattern: length)) is over \(APIEndpoint.maximumImageLength) bytes")
        }
        return try .uploadImage(identifier: try text(id, "image_identifier"), image: Array(try Arguments.buffer(image, length, "image")),
                                imageSize: try optionalText(size, "image_size"))
    }
}

@c(appstore_delete_image)
public func appstoreDeleteImage(_ out: OutString?,
                                _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_delete_image", client, out) { () throws(GateKitError) in try .deleteImage(identifier: try text(id, "image_identifier")) }
}

@c(appstore_get_image_list)
public func appstoreGetImageList(_ out: OutString?, _ client: OpaquePointer?) -> Int32 {
    call("appstore_get_image_list", client, out) { () throws(GateKitError) in .getImageList() }
}

@c(appstore_upload_message)
public func appstoreUploadMessage(_ out: OutString?,
                                  _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_upload_message", client, out) { () throws(GateKitError) in
        try .uploadMessage(identifier: try text(id, "message_identifier"), request: try body(request, "request_json"))
    }
}

@c(appstore_delete_message)
public func appstoreDeleteMessage(_ out: OutString?,
                                  _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_delete_message", client, out) { () throws(GateKitError) in try .deleteMessage(identifier: try text(id, "message_identifier")) }
}

@c(appstore_get_message_list)
public func appstoreGetMessageList(_ out: OutString?, _ client: OpaquePointer?) -> Int32 {
    call("appstore_get_message_list", client, out) { () throws(GateKitError) in .getMessageList() }
}

@c(appstore_configure_default_message)
public func appstoreConfigureDefaultMessage(_ out: OutString?,
                                            _ client: OpaquePointer?, _ product: UnsafePointer<CChar>?, _ locale: UnsafePointer<CChar>?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_configure_default_message", client, out) { () throws(GateKitError) in
        try .configureDefaultMessage(productID: try text(product, "product_id"), locale: try text(locale, "locale"), request: try body(request, "request_json"))
    }
}

@c(appstore_delete_default_message)
public func appstoreDeleteDefaultMessage(_ out: OutString?,
                                         _ client: OpaquePointer?, _ product: UnsafePointer<CChar>?, _ locale: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_delete_default_message", client, out) { () throws(GateKitError) in
        try .deleteDefaultMessage(productID: try text(product, "product_id"), locale: try text(locale, "locale"))
    }
}

@c(appstore_get_default_message)
public func appstoreGetDefaultMessage(_ out: OutString?,
                                      _ client: OpaquePointer?, _ product: UnsafePointer<CChar>?, _ locale: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_default_message", client, out) { () throws(GateKitError) in
        try .getDefaultMessage(productID: try text(product, "product_id"), locale: try text(locale, "locale"))
    }
}

@c(appstore_configure_realtime_url)
public func appstoreConfigureRealtimeURL(_ out: OutString?,
                                         _ client: OpaquePointer?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_configure_realtime_url", client, out) { () throws(GateKitError) in try .configureRealtimeURL(request: try body(request, "request_json")) }
}

@c(appstore_delete_realtime_url)
public func appstoreDeleteRealtimeURL(_ out: OutString?, _ client: OpaquePointer?) -> Int32 {
    call("appstore_delete_realtime_url", client, out) { () throws(GateKitError) in .deleteRealtimeURL() }
}

@c(appstore_get_realtime_url)
public func appstoreGetRealtimeURL(_ out: OutString?, _ client: OpaquePointer?) -> Int32 {
    call("appstore_get_realtime_url", client, out) { () throws(GateKitError) in .getRealtimeURL() }
}

@c(appstore_initiate_performance_test)
public func appstoreInitiatePerformanceTest(_ out: OutString?,
                                            _ client: OpaquePointer?, _ request: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_initiate_performance_test", client, out) { () throws(GateKitError) in try .initiatePerformanceTest(request: try body(request, "request_json")) }
}

@c(appstore_get_performance_test_results)
public func appstoreGetPerformanceTestResults(_ out: OutString?,
                                              _ client: OpaquePointer?, _ id: UnsafePointer<CChar>?) -> Int32 {
    call("appstore_get_performance_test_results", client, out) { () throws(GateKitError) in
        try .getPerformanceTestResults(requestID: try text(id, "request_id"))
    }
}
