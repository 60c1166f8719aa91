import GateKitCrypto
import GateKitSupport
import GateKitTrust



/// App Store receipt validation: container, payload, Apple chain of trust at the creation date,
/// signature, then the caller's requirements. Each failure has its own `GateKitError.Code`.
public enum ReceiptValidator {
    public static let maximumInputSize = 16 << 20

    public static func validate(_ input: UnsafeRawBufferPointer, options: ReceiptValidationOptions,
                                verifier: ChainVerifier = .shared) throws(GateKitError) -> ValidatedReceipt {
        try checkOptions(options)
        // DER is read where the caller keeps it (only the signed payload is copied, into the
        // receipt); base64 text is decoded first.
        if try ReceiptInput.isDER(input) { return try validateDER(input, options: options, verifier: verifier) }
        let der = try ReceiptInput.decode(input)
        return try der.withUnsafeBytes { raw in
            Result { () throws(GateKitError) in try validateDER(raw, options: options, verifier: verifier) }
        }.get()
    }

    public static func validate(_ input: [UInt8], options: ReceiptValidationOptions,
                                verifier: ChainVerifier = .shared) throws(GateKitError) -> ValidatedReceipt {
        try input.withUnsafeBytes { raw in
            Result { () throws(GateKitError) in try validate(raw, options: options, verifier: verifier) }
        }.get()
    }

    private static func checkOptions(_ options: ReceiptValidationOptions) throws(GateKitError) {
        guard !options.bundleID.isEmpty else { throw .invalid("bundle_id is empty") }
        if let id = options.deviceID, !ReceiptValidationOptions.deviceIDLengths.contains(id.count) {
            throw .invalid("device id must be 16 bytes (UUID) or 6 bytes (MAC address), not \(id.count)")
        }
        guard !(options.productionOnly && options.sandboxOnly) else {
            throw .invalid("PRODUCTION_ONLY and SANDBOX_ONLY exclude each other")
        }
    }

    static func validateDER(_ der: UnsafeRawBufferPointer, options: ReceiptValidationOptions,
                            verifier: ChainVerifier) throws(GateKitError) -> ValidatedReceipt {
        let container = try parseContainer(der)
        let receipt = try parsePayload(container)
        guard let creation = receipt.creationDate else {
            throw GateKitError(.ERECEIPT_NO_CREATION_DATE, "the payload has no receipt creation date (attribute 12)")
        }

        // Which root: the caller's test anchor only for a receipt that says it is Xcode's;
        // Apple's for everything else. Authenticity is decided before any value of the
        // payload is judged (or quoted): an unknown environment is reported only for a
        // receipt Apple signed.
        let policy: TrustPolicy
        let environment = receipt.environmentClass
        if environment == .xcode {
            guard let anchor = options.testAnchorDER else {
                throw GateKitError(.ERECEIPT_XCODE,
                    "this is an Xcode (StoreKit testing) receipt; it is accepted only with an explicit test anchor")
            }
            guard !options.productionOnly else {
                throw GateKitError(.ERECEIPT_XCODE, "Xcode receipts are refused when production is required")
            }
            do {
                policy = try .testing(anchorDER: anchor, requireSHA256: options.requireSHA256)
            } catch {
                throw GateKitError(.ERECEIPT_TEST_ANCHOR, "test_anchor_der: \(error.message)")
            }
        } else {
            do {
                policy = try .appStoreReceipts(requireSHA256: options.requireSHA256)
            } catch {
                throw trustError(error)
            }
        }

        guard let signerIndex = container.signerCertificateIndex() else {
            throw GateKitError(.ERECEIPT_NO_SIGNER, "none of the \(container.certificates.count) embedded certificates matches the SignerInfo issuer and serial number")
        }
        let time = options.verifyTime ?? floorDivide(creation.milliseconds, 1000)
        let chain: VerifiedChain
        do {
            chain = try verifier.verify(leaf: container.certificates[signerIndex], untrusted: container.certificates,
                                        at: time, policy: policy)
        } catch {
            // A modified payload is the more fundamental finding (it also explains a creation
            // date outside the chain's validity): report it before the chain's problem.
            if ChainVerifier.signatureVerifies(certificate: container.certificates[signerIndex], signature: container.signature,
                                               over: container.payload, digest: container.digest) == false {
                throw GateKitError(.ERECEIPT_SIGNATURE, "the \(container.signatureAlgorithm) signature does not verify over the payload (and the chain failed: \(error.message))")
            }
            throw trustError(error)
        }
        guard chain.keyType == .rsa else {
            throw GateKitError(.ERECEIPT_ALGORITHM, "the signer key is not RSA")
        }
        if options.requireSHA256 && container.digest == .sha1 {
            throw GateKitError(.ERECEIPT_WEAK_DIGEST, "the receipt signature uses SHA-1; SHA-256 is required")
        }
        let valid = container.signature.withUnsafeBytes { sig in
            container.payload.withUnsafeBytes { payload in
                chain.verifySignature(sig, over: payload, digest: container.digest)
            }
        }
        guard valid else {
            throw GateKitError(.ERECEIPT_SIGNATURE, "the \(container.signatureAlgorithm) signature does not verify over the payload with \(Quoted.text(chain.leafSubject))")
        }

        if environment == .unknown {
            throw GateKitError(.ERECEIPT_ENVIRONMENT, "unknown receipt environment \(Quoted.text(receipt.environment))")
        }
        try checkRequirements(receipt, environment, options: options)
        return ValidatedReceipt(receipt: receipt, isTestSigned: chain.isTestAnchored, digest: container.digest,
                                verificationTime: time, validatedAt: Clock.nowMilliseconds(), signedPayload: container.payload)
    }

    private static func checkRequirements(_ receipt: Receipt, _ environment: Receipt.EnvironmentClass,
                                          options: ReceiptValidationOptions) throws(GateKitError) {
        switch environment {
        case .sandbox where options.productionOnly:
            throw GateKitError(.ERECEIPT_SANDBOX, "the receipt environment is \(Quoted.text(receipt.environment)) but production is required (Apple status 21007)")
        case .production where options.sandboxOnly:
            throw GateKitError(.ERECEIPT_PRODUCTION, "the receipt environment is \(Quoted.text(receipt.environment)) but sandbox is required (Apple status 21008)")
        default:
            break
        }
        guard receipt.bundleID == options.bundleID else {
            throw GateKitError(.ERECEIPT_BUNDLE_ID, "the receipt is for \(Quoted.text(receipt.bundleID)), not \(Quoted.text(options.bundleID))")
        }
        if let version = options.appVersion, receipt.appVersion != version {
            throw GateKitError(.ERECEIPT_APP_VERSION, "the receipt is for version \(Quoted.text(receipt.appVersion)), not \(Quoted.text(version))")
        }
        if let device = options.deviceID {
            guard let opaque = receipt.opaqueValue, let hash = receipt.sha1Hash else {
                throw GateKitError(.ERECEIPT_DEVICE_HASH, "the receipt has no opaque value or hash to check the device against")
            }
            let computed = try Digest.hash(.sha1, device + opaque + receipt.bundleIDData)
            guard computed == hash else {
                throw GateKitError(.ERECEIPT_DEVICE_HASH, "SHA-1(device id, opaque value, bundle id) does not equal the receipt hash: the receipt was issued to another device")
            }
        }
    }

    static func parseContainer(_ der: UnsafeRawBufferPointer, lenient: Bool = false) throws(GateKitError) -> SignedDataContainer {
        do {
            return try SignedDataContainer.parse(der, lenient: lenient)
        } catch {
            throw error.gateKitError
        }
    }

    static func parsePayload(_ container: SignedDataContainer) throws(GateKitError) -> Receipt {
        do {
            return try ReceiptPayload.parse(container.payload)
        } catch {
            throw error.gateKitError
        }
    }

    static func trustError(_ failure: TrustFailure) -> GateKitError {
        switch failure {
        case let .malformedCertificate(m): GateKitError(.ERECEIPT_BAD_CERT, m)
        case let .untrustedRoot(m): GateKitError(.ERECEIPT_UNTRUSTED, m)
        case let .chainLength(m): GateKitError(.ERECEIPT_CHAIN_LENGTH, m)
        case let .leafOID(m): GateKitError(.ERECEIPT_LEAF_OID, m)
        case let .intermediateOID(m): GateKitError(.ERECEIPT_INTERMEDIATE_OID, m)
        case let .notValidAtTime(m): GateKitError(.ERECEIPT_CERT_TIME, m)
        case let .weakDigest(m): GateKitError(.ERECEIPT_WEAK_DIGEST, m)
        case let .certificateSignature(m): GateKitError(.ERECEIPT_CERT_SIGNATURE, m)
        case let .chainInvalid(m): GateKitError(.ERECEIPT_CHAIN, m)
        case let .pinnedRootMismatch(m): GateKitError(.EINTERNAL, m)
        case let .resources(m): GateKitError(.ENOMEM, m)
        }
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Apple's verifyReceipt status for a GateKit code: 0 success, 21002 malformed,
    /// 21003 not authenticated, 21007 sandbox receipt sent to production, 21008 the reverse,
    /// 21009 anything else (caller or internal errors).
    public static func appleStatus(for code: Int32) -> Int32 {
        guard code != 0 else { return 0 }
        guard let c = GateKitError.Code(rawValue: code) else { return 21009 }
        switch c {
        case .ERECEIPT_MALFORMED, .ERECEIPT_PAYLOAD, .ERECEIPT_ALGORITHM, .ERECEIPT_NO_CREATION_DATE:
            return 21002
        case .ERECEIPT_SANDBOX:
            return 21007
        case .ERECEIPT_PRODUCTION:
            return 21008
        case .ERECEIPT_SIGNED_ATTRS, .ERECEIPT_NO_SIGNER, .ERECEIPT_SIGNATURE, .ERECEIPT_UNTRUSTED,
             .ERECEIPT_CHAIN_LENGTH, .ERECEIPT_LEAF_OID, .ERECEIPT_INTERMEDIATE_OID, .ERECEIPT_CERT_TIME,
             .ERECEIPT_WEAK_DIGEST, .ERECEIPT_CERT_SIGNATURE, .ERECEIPT_CHAIN, .ERECEIPT_BAD_CERT,
             .ERECEIPT_BUNDLE_ID, .ERECEIPT_APP_VERSION, .ERECEIPT_DEVICE_HASH, .ERECEIPT_XCODE,
             .ERECEIPT_ENVIRONMENT:
            return 21003
        default:
            return 21009
        }
    }
}

