/// A validated receipt as the JSON body Apple's verifyReceipt returned, so servers can switch to
/// local validation without touching their parsing code. Receipt-level ids are numbers; every
/// in_app value is a string; dates come as `… Etc/GMT`, `_ms` and `_pst`; absent values have no key.
public enum ReceiptJSON {
    public static func verifyReceiptBody(_ v: ValidatedReceipt) -> String {
        let r = v.receipt
        var receipt: [(String, JSONValue)] = []
        if let env = r.environment { receipt.append(("receipt_type", .string(env))) }
        if let id = r.appItemID {
            receipt.append(("adam_id", .number(id)))
            receipt.append(("app_item_id", .number(id)))
        }
        if let b = r.bundleID { receipt.append(("bundle_id", .string(b))) }
        if let a = r.appVersion { receipt.append(("application_version", .string(a))) }
        if let d = r.downloadID { receipt.append(("download_id", .number(d))) }
        if let x = r.versionExternalIdentifier { receipt.append(("version_external_identifier", .number(x))) }
        appendDate(&receipt, "receipt_creation_date", r.creationDate?.milliseconds)
        appendDate(&receipt, "request_date", v.validatedAt)
        appendDate(&receipt, "original_purchase_date", r.originalPurchaseDate?.milliseconds)
        if let o = r.originalAppVersion { receipt.append(("original_application_version", .string(o))) }
        appendDate(&receipt, "expiration_date", r.expirationDate?.milliseconds)
        if let age = r.ageRating { receipt.append(("age_rating", .string(age))) }
        receipt.append(("in_app", .array(r.purchases.map(purchase))))

        let body: JSONValue = .object([
            ("status", .number(0)),
            ("environment", .string(environmentName(r))),
            ("receipt", .object(receipt)),
        ])
        var w = JSONWriter(reservingCapacity: 1024 + r.purchases.count * 900)
        w.write(body)
        return w.text
    }

    /// "Production", "Sandbox" (sandbox, TestFlight, VPP sandbox) or "Xcode".
    public static func environmentName(_ r: Receipt) -> String {
        switch r.environmentClass {
        case .production: "Production"
        case .sandbox: "Sandbox"
        case .xcode: "Xcode"
        case .unknown: r.environment ?? "Unknown"
        }
    }

    static func purchase(_ p: InAppPurchase) -> JSONValue {
        var m: [(String, JSONValue)] = []
        if let q = p.quantity { m.append(("quantity", .string(String(q)))) }
        if let s = p.productID { m.append(("product_id", .string(s))) }
        if let s = p.transactionID { m.append(("transaction_id", .string(s))) }
        if let s = p.originalTransactionID { m.append(("original_transaction_id", .string(s))) }
        appendDate(&m, "purchase_date", p.purchaseDate?.milliseconds)
        appendDate(&m, "original_purchase_date", p.originalPurchaseDate?.milliseconds)
        appendDate(&m, "expires_date", p.expiresDate?.milliseconds)
        if let w = p.webOrderLineItemID { m.append(("web_order_line_item_id", .string(String(w)))) }
        if let t = p.isTrialPeriod { m.append(("is_trial_period", .string(t ? "true" : "false"))) }
        if let t = p.isInIntroOfferPeriod { m.append(("is_in_intro_offer_period", .string(t ? "true" : "false"))) }
        appendDate(&m, "cancellation_date", p.cancellationDate?.milliseconds)
        if let s = p.promotionalOfferID { m.append(("promotional_offer_id", .string(s))) }
        return .object(m)
    }

    static func appendDate(_ m: inout [(String, JSONValue)], _ key: String, _ ms: Int64?) {
        guard let ms else { return }
        m.append((key, .string(Timestamp.spaced(ms) + " Etc/GMT")))
        m.append((key + "_ms", .string(String(ms))))
        m.append((key + "_pst", .string(PacificTime.format(ms))))
    }

    /// The parse without any decision (for `gatekit receipt inspect`): container facts, every
    /// decoded field, no trust verdict.
    public static func inspection(_ input: [UInt8]) throws(GateKitError) -> String {
        let der = try input.withUnsafeBytes { raw in Result { () throws(GateKitError) in try ReceiptInput.decode(raw) } }.get()
        let (container, receipt) = try der.withUnsafeBytes { raw in
            Result { () throws(GateKitError) in
                let c = try ReceiptValidator.parseContainer(raw)
                return (c, try ReceiptValidator.parsePayload(c))
            }
        }.get()
        var subjects: [JSONValue] = []
        for der in container.certificates {
            if let cert = try? Certificate(der: der, role: "certificate") { subjects.append(.string(cert.subject)) }
            else { subjects.append(.null) }
        }
        var fields: [(String, JSONValue)] = [
            ("validated", .bool(false)),
            ("encoding", .string(container.usesIndefiniteLength ? "BER indefinite length" : "DER")),
            ("digest", .string(container.digest == .sha1 ? "sha1" : "sha256")),
            ("signature_algorithm", .string(container.signatureAlgorithm)),
            ("certificates", .array(subjects)),
            ("signer_found", .bool(container.signerCertificateIndex() != nil)),
            ("payload_bytes", .number(container.payload.count)),
            ("attribute_count", .number(receipt.attributeCount)),
            ("environment", receipt.environment.map(JSONValue.string) ?? .null),
        ]
        if let o = receipt.opaqueValue { fields.append(("opaque_value_hex", .string(Hex.encode(o)))) }
        if let h = receipt.sha1Hash { fields.append(("sha1_hash_hex", .string(Hex.encode(h)))) }
        let body = ValidatedReceipt(receipt: receipt, isTestSigned: false, digest: container.digest,
                                    verificationTime: 0, validatedAt: Clock.nowMilliseconds())
        if let parsed = try? JSONParser.parse(Array(verifyReceiptBody(body).utf8)), let r = parsed["receipt"] {
            fields.append(("receipt", r))
        }
        var w = JSONWriter()
        w.write(.object(fields))
        return w.text
    }
}
