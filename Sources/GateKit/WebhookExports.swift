import CGateKitHeader
import Glibc
import GateKitSupport
import GateKitWebhooks

// include/gatekit/webhooks.h: Standard Webhooks, signed and verified.

@c(webhook_secret_generate)
public func webhookSecretGenerate(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    exportBoundary("webhook_secret_generate") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_secret")
        out.pointee = nil
        out.pointee = try Owned.cString(try WebhookSecret.generate())
        return GATEKIT_OK
    }
}

@c(webhook_sign)
public func webhookSign(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ msgID: UnsafePointer<CChar>?, _ timestamp: Int64,
                        _ body: UnsafeRawPointer?, _ bodyLength: Int, _ secrets: UnsafePointer<UnsafePointer<CChar>?>?,
                        _ secretCount: Int) -> Int32 {
    exportBoundary("webhook_sign") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_signature")
        out.pointee = nil
        let id = try Arguments.string(msgID, "msg_id")
        let bytes = try Arguments.body(body, bodyLength, limit: StandardWebhook.maximumBodyLength)
        let signature = try StandardWebhook.sign(id: id, timestamp: timestamp, body: bytes, secrets: try webhookSecrets(secrets, secretCount))
        out.pointee = try Owned.cString(signature)
        return GATEKIT_OK
    }
}

@c(webhook_verify)
public func webhookVerify(_ outIndex: UnsafeMutablePointer<Int>?, _ msgID: UnsafePointer<CChar>?, _ timestamp: UnsafePointer<CChar>?,
                          _ signature: UnsafePointer<CChar>?, _ body: UnsafeRawPointer?, _ bodyLength: Int,
                          _ secrets: UnsafePointer<UnsafePointer<CChar>?>?, _ secretCount: Int, _ toleranceSeconds: Int32,
                          _ nowSeconds: Int64) -> Int32 {
    exportBoundary("webhook_verify") { () throws(GateKitError) in
        let bytes = try Arguments.body(body, bodyLength, limit: StandardWebhook.maximumBodyLength)
        let keys = try webhookSecrets(secrets, secretCount)
        guard toleranceSeconds >= 0 else { throw .invalid("tolerance_s is negative (0: 300 s)") }
        guard nowSeconds >= 0 else { throw .invalid("now_s is negative (0: this host's clock)") }
        func header(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> String {
            guard p != nil else { throw GateKitError(.EWEBHOOK_HEADER, "the delivery has no \(name) header") }
            do throws(GateKitError) { return try Arguments.string(p, name) } catch { throw GateKitError(.EWEBHOOK_HEADER, error.message) }
        }
        let verified = try StandardWebhook.verify(
            id: try header(msgID, "webhook-id"), timestamp: try header(timestamp, "webhook-timestamp"),
            signatureHeader: try header(signature, "webhook-signature"), body: bytes, secrets: keys,
            toleranceSeconds: toleranceSeconds == 0 ? StandardWebhook.defaultToleranceSeconds : Int(toleranceSeconds),
            nowSeconds: nowSeconds == 0 ? nil : nowSeconds)
        outIndex?.pointee = verified.secretIndex
        return GATEKIT_OK
    }
}

/// The endpoint's secrets as given (1 to 8), each checked; a wrong one named by its place only.
private func webhookSecrets(_ secrets: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) throws(GateKitError) -> [WebhookSecret] {
    guard let secrets else { throw .invalid("secrets is NULL") }
    guard (1...StandardWebhook.maximumSecrets).contains(count) else {
        throw .invalid("secret_count must be 1 to \(StandardWebhook.maximumSecrets), not \(UInt(bitPattern: count))")
    }
    var out: [WebhookSecret] = []
    for i in 0..<count {
        let text = try Arguments.string(secrets[i], "secrets[\(i)]")
        do throws(GateKitError) { out.append(try WebhookSecret(text)) } catch { throw .invalid("secrets[\(i)]: \(error.message)") }
    }
    return out
}
