/// A validated receipt as the JSON body Apple's verifyReceipt returned, so servers can switch to
/// local validation without touching their parsing code. Receipt-level ids are numbers; every
/// in_app value is a string; dates come as `… Etc/GMT`, `_ms` and `_pst`; absent values have no key.
public enum ReceiptJSON {
    /// With an identity, GateKit's marking is appended last (see `Provenance.marking`):
    /// `"gatekit":{"version":1,"identity":"<64 hex>","testSigned":bool}`.
    public static func verifyReceiptBody(_ v: ValidatedReceipt, identity: ReplayIdentity? = nil) -> String {
        String(decoding: verifyReceiptBodyBytes(v, identity: identity), as: UTF8.self)
    }

    /// The same document as UTF-8 bytes (valid by construction): what the C layer hands out,
    /// without a String in between (a 187-purchase receipt's JSON is ~200 KB).
    public static func verifyReceiptBodyBytes(_ v: ValidatedReceipt, identity: ReplayIdentity? = nil) -> [UInt8] {
        let r = v.receipt
        var o = ObjectWriter(capacity: 1024 + r.purchases.count * 1100)
        o.open()
        o.number("status", 0)
        o.string("environment", environmentName(r))
        o.key("receipt")
        o.open()
        if let env = r.environment { o.string("receipt_type", env) }
        if let id = r.appItemID {
            o.number("adam_id", id)
            o.number("app_item_id", id)
        }
        if let b = r.bundleID { o.string("bundle_id", b) }
        if let a = r.appVersion { o.string("application_version", a) }
        if let d = r.downloadID { o.number("download_id", d) }
        if let x = r.versionExternalIdentifier { o.number("version_external_identifier", x) }
        o.date("receipt_creation_date", r.creationDate?.milliseconds)
        o.date("request_date", v.validatedAt)
        o.date("original_purchase_date", r.originalPurchaseDate?.milliseconds)
        if let s = r.originalAppVersion { o.string("original_application_version", s) }
        o.date("expiration_date", r.expirationDate?.milliseconds)
        if let age = r.ageRating { o.string("age_rating", age) }
        o.key("in_app")
        o.w.raw("[")
        for (i, p) in r.purchases.enumerated() {
            if i > 0 { o.w.raw(",") }
            purchase(p, &o)
        }
        o.w.raw("]")
        o.first = false
        o.close()
        if let identity {
            o.key(Provenance.jsonMember)
            o.w.write(v.provenance.json(identity: identity))
        }
        o.close()
        return o.w.bytes
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

    static func purchase(_ p: InAppPurchase, _ o: inout ObjectWriter) {
        o.open()
        if let q = p.quantity { o.string("quantity", String(q)) }
        if let s = p.productID { o.string("product_id", s) }
        if let s = p.transactionID { o.string("transaction_id", s) }
        if let s = p.originalTransactionID { o.string("original_transaction_id", s) }
        o.date("purchase_date", p.purchaseDate?.milliseconds)
        o.date("original_purchase_date", p.originalPurchaseDate?.milliseconds)
        o.date("expires_date", p.expiresDate?.milliseconds)
        if let w = p.webOrderLineItemID { o.string("web_order_line_item_id", String(w)) }
        if let t = p.isTrialPeriod { o.string("is_trial_period", t ? "true" : "false") }
        if let t = p.isInIntroOfferPeriod { o.string("is_in_intro_offer_period", t ? "true" : "false") }
        o.date("cancellation_date", p.cancellationDate?.milliseconds)
        if let s = p.promotionalOfferID { o.string("promotional_offer_id", s) }
        o.close()
    }

    /// Streams one JSON object's members (keys are fixed ASCII names, written raw).
    struct ObjectWriter {
        var w: JSONWriter
        var first = true

        init(capacity: Int) { w = JSONWriter(reservingCapacity: capacity) }

        mutating func open() { w.raw("{"); first = true }
        mutating func close() { w.raw("}"); first = false }

        mutating func key(_ k: String, suffix: StaticString = "") {
            w.raw(first ? "\"" : ",\"")
            w.raw(k)
            if suffix.utf8CodeUnitCount > 0 { w.raw(suffix.description) }
            w.raw("\":")
            first = false
        }

        mutating func string(_ k: String, _ value: String) { key(k); w.string(value) }
        mutating func number(_ k: String, _ value: Int64) { key(k); w.raw(String(value)) }

        /// `key` (`… Etc/GMT`), `key_ms`, `key_pst` (America/Los_Angeles), as verifyReceipt wrote them.
        mutating func date(_ k: String, _ ms: Int64?) {
            guard let ms else { return }
            key(k)
            w.raw("\"")
            w.raw(ReceiptJSON.spaced(ms))
            w.raw(" Etc/GMT\"")
            key(k, suffix: "_ms")
            w.raw("\"")
            w.raw(String(ms))
            w.raw("\"")
            key(k, suffix: "_pst")
            w.raw("\"")
            w.raw(ReceiptJSON.spaced(ms &+ PacificTime.offset(at: ms)))
            w.raw(" America/Los_Angeles\"")
        }
    }

    /// `2020-07-14 19:36:40` (years 0…9999), built without intermediate strings.
    static func spaced(_ ms: Int64) -> String {
        let c = Timestamp.civil(milliseconds: ms)
        guard (0...9999).contains(c.year) else { return Timestamp.spaced(ms) }
        return String(unsafeUninitializedCapacity: 19) { b in
            func put(_ at: Int, _ value: Int, _ width: Int) {
                var v = value
                for k in stride(from: at + width - 1, through: at, by: -1) {
                    b[k] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                    v /= 10
                }
            }
            put(0, c.year, 4); b[4] = 0x2D
            put(5, c.month, 2); b[7] = 0x2D
            put(8, c.day, 2); b[10] = 0x20
            put(11, c.hour, 2); b[13] = 0x3A
            put(14, c.minute, 2); b[16] = 0x3A
            put(17, c.second, 2)
            return 19
        }
    }

    /// The parse without any decision (for `gatekit receipt inspect`): container facts, every
    /// decoded field, no trust verdict. Shows what it can of any SignedData: what validation
    /// would refuse before looking at trust (signed attributes, an algorithm Apple does not
    /// use, a malformed payload) is listed under "refusals" instead of failing the inspection.
    public static func inspection(_ input: [UInt8]) throws(GateKitError) -> String {
        let der = try input.withUnsafeBytes { raw in Result { () throws(GateKitError) in try ReceiptInput.decode(raw) } }.get()
        let container = try der.withUnsafeBytes { raw in
            Result { () throws(GateKitError) in try ReceiptValidator.parseContainer(raw, lenient: true) }
        }.get()
        var refusals = container.refusals.map(\.gateKitError)
        var receipt: Receipt?
        do {
            receipt = try ReceiptValidator.parsePayload(container)
        } catch {
            refusals.append(error)
        }
        var subjects: [JSONValue] = []
        for der in container.certificates {
            if let cert = try? Certificate(der: der, role: "certificate") { subjects.append(.string(cert.subject)) }
            else { subjects.append(.null) }
        }
        var fields: [(String, JSONValue)] = [
            ("version", .number(JSONDocument.version)),
            ("validated", .bool(false)),
            ("encoding", .string(container.usesIndefiniteLength ? "BER indefinite length" : "DER")),
            ("digest", .string(container.digestName)),
            ("signature_algorithm", .string(container.signatureAlgorithm)),
            ("certificates", .array(subjects)),
            ("signer_found", .bool(container.signerCertificateIndex() != nil)),
            ("payload_bytes", .number(container.payload.count)),
            ("refusals", .array(refusals.map { e in
                .object([("code", .number(Int64(e.code.rawValue))), ("reason", .string(e.message))])
            })),
        ]
        if let receipt {
            fields.append(("attribute_count", .number(receipt.attributeCount)))
            fields.append(("environment", receipt.environment.map(JSONValue.string) ?? .null))
            if let o = receipt.opaqueValue { fields.append(("opaque_value_hex", .string(Hex.encode(o)))) }
            if let h = receipt.sha1Hash { fields.append(("sha1_hash_hex", .string(Hex.encode(h)))) }
            let body = ValidatedReceipt(receipt: receipt, isTestSigned: false, digest: container.digest,
                                        verificationTime: 0, validatedAt: Clock.nowMilliseconds(),
                                        signedPayload: container.payload)
            // The verifyReceipt-shaped fields, minus request_date (nothing was validated).
            if let parsed = try? JSONParser.parse(Array(verifyReceiptBody(body).utf8)), case let .object(members)? = parsed["receipt"] {
                fields.append(("receipt", .object(members.filter { !$0.0.hasPrefix("request_date") })))
            }
        }
        var w = JSONWriter()
        w.write(.object(fields))
        return w.text
    }
}
