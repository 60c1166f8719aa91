import GateKitSupport
import GateKitTrust

/// A validated receipt as the JSON body Apple's verifyReceipt returned, so servers can switch to
/// local validation without touching their parsing code. Receipt-level ids are numbers; every
/// in_app value is a string; dates come as `… Etc/GMT`, `_ms` and `_pst`; absent values have no key.
public enum ReceiptJSON {
    /// With an identity, GateKit's marking is appended last (see `Provenance.marking`):
    /// `"gatekit":{"version":1,"identity":"<64 hex>","testSigned":bool}`.
    public static func verifyReceiptBody(_ v: ValidatedReceipt, identity: ReplayIdentity? = nil) throws(GateKitError) -> String {
        String(decoding: try write(v, identity: identity).bytes(), as: UTF8.self)
    }

    /// The same document, written straight into a buffer the C layer hands out as it is
    /// (a 187-purchase receipt's JSON is ~130 KB: no String, no copy).
    public static func write(_ v: ValidatedReceipt, identity: ReplayIdentity? = nil) -> ByteWriter {
        let r = v.receipt
        var o = ObjectWriter(ByteWriter(capacity: 2048 + r.purchases.count * 768))
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
        o.w.append(byte: UInt8(ascii: "["))
        for (i, p) in r.purchases.enumerated() {
            if i > 0 { o.w.append(byte: UInt8(ascii: ",")) }
            purchase(p, &o)
        }
        o.w.append(byte: UInt8(ascii: "]"))
        o.close()
        if let identity {
            o.member(Provenance.jsonMember)
            var marking = JSONWriter()
            marking.write(v.provenance.json(identity: identity))
            o.w.append(marking.bytes)
        }
        o.close()
        return o.w
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

    /// Every in_app value is a string, as verifyReceipt wrote them; strings come from the payload
    /// without becoming Strings.
    static func purchase(_ p: InAppPurchase, _ o: inout ObjectWriter) {
        let f = p.record
        o.open()
        if let q = f.quantity { o.quotedNumber("quantity", q) }
        o.text("product_id", p, f.productID)
        o.text("transaction_id", p, f.transactionID)
        o.text("original_transaction_id", p, f.originalTransactionID)
        o.date("purchase_date", f.purchaseDate?.milliseconds)
        o.date("original_purchase_date", f.originalPurchaseDate?.milliseconds)
        o.date("expires_date", f.expiresDate?.milliseconds)
        if let w = f.webOrderLineItemID { o.quotedNumber("web_order_line_item_id", w) }
        if let t = f.isTrialPeriod { o.flag("is_trial_period", t) }
        if let t = f.isInIntroOfferPeriod { o.flag("is_in_intro_offer_period", t) }
        o.date("cancellation_date", f.cancellationDate?.milliseconds)
        o.text("promotional_offer_id", p, f.promotionalOfferID)
        o.close()
    }

    /// Streams one JSON object's members (keys are fixed ASCII names, written raw).
    struct ObjectWriter: ~Copyable {
        var w: ByteWriter
        var first = true
        private var dates = VerifyReceiptDates()

        init(_ w: consuming ByteWriter) { self.w = w }

        mutating func open() { w.append(byte: UInt8(ascii: "{")); first = true }
        mutating func close() { w.append(byte: UInt8(ascii: "}")); first = false }

        mutating func key(_ k: StaticString, suffix: StaticString = "") {
            key(UnsafeRawBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount),
                UnsafeRawBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount))
        }

        /// A key known only at run time (ASCII, no escapes needed).
        mutating func member(_ name: String) {
            var name = name
            name.withUTF8 { key(UnsafeRawBufferPointer($0), UnsafeRawBufferPointer(start: nil, count: 0)) }
        }

        /// `,"name suffix":` in one write: ~4,700 keys in a 187-purchase receipt, short enough
        /// that a byte loop beats four calls to memcpy.
        private mutating func key(_ name: UnsafeRawBufferPointer, _ suffix: UnsafeRawBufferPointer) {
            guard let b = w.room(name.count + suffix.count + 4) else { return }
            var i = 0
            if !first {
                b[0] = UInt8(ascii: ",")
                i = 1
            }
            b[i] = UInt8(ascii: "\"")
            i += 1
            for c in name { b[i] = c; i += 1 }
            for c in suffix { b[i] = c; i += 1 }
            b[i] = UInt8(ascii: "\"")
            b[i + 1] = UInt8(ascii: ":")
            w.advance(i + 2)
            first = false
        }

        mutating func string(_ k: StaticString, _ value: String) {
            key(k)
            var value = value
            value.withUTF8 { w.appendJSONString(UnsafeRawBufferPointer($0)) }
        }

        mutating func text(_ k: StaticString, _ p: InAppPurchase, _ span: PayloadText) {
            guard span.isPresent else { return }
            key(k)
            p.withBytes(span) { w.appendJSONString($0) }
        }

        mutating func number(_ k: StaticString, _ value: Int64) { key(k); w.appendDecimal(value) }

        mutating func quotedNumber(_ k: StaticString, _ value: Int64) {
            key(k)
            w.append(byte: 0x22)
            w.appendDecimal(value)
            w.append(byte: 0x22)
        }

        mutating func flag(_ k: StaticString, _ value: Bool) {
            key(k)
            w.append(value ? "\"true\"" : "\"false\"")
        }

        /// `key` (`… Etc/GMT`), `key_ms`, `key_pst` (America/Los_Angeles), as verifyReceipt wrote them.
        mutating func date(_ k: StaticString, _ ms: Int64?) {
            guard let ms else { return }
            guard let text = dates.text(ms) else {
                // A year outside 0…9999: never in a receipt, written the slow way.
                var utc = Timestamp.spaced(ms), pacific = Timestamp.spaced(ms &+ PacificTime.offset(at: ms))
                utc.withUTF8 { u in pacific.withUTF8 { p in write(k, ms, UnsafeRawBufferPointer(u), nil, UnsafeRawBufferPointer(p)) } }
                return
            }
            text.withParts { utc, digits, pacific in write(k, ms, utc, digits, pacific) }
        }

        private mutating func write(_ k: StaticString, _ ms: Int64, _ utc: UnsafeRawBufferPointer, _ digits: UnsafeRawBufferPointer?,
                                    _ pacific: UnsafeRawBufferPointer) {
            key(k)
            w.append(byte: 0x22)
            w.append(utc)
            w.append(" Etc/GMT\"")
            key(k, suffix: "_ms")
            w.append(byte: 0x22)
            if let digits { w.append(digits) } else { w.appendDecimal(ms) }
            w.append(byte: 0x22)
            key(k, suffix: "_pst")
            w.append(byte: 0x22)
            w.append(pacific)
            w.append(" America/Los_Angeles\"")
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
            if let parsed = try? JSONParser.parse(write(body).bytes()), case let .object(members)? = parsed["receipt"] {
                fields.append(("receipt", .object(members.filter { !$0.0.hasPrefix("request_date") })))
            }
        }
        var w = JSONWriter()
        w.write(.object(fields))
        return w.text
    }
}
