import GateKitSupport
import GateKitTrust

/// An x5c certificate chain checked on its own, as Apple's chain verifier checks one: the same
/// trust rules as signed data (`X5CChain`: Apple Root CA - G3 pinned, or the caller's test
/// anchor; leaf and intermediate OIDs; valid at the time), for a host that holds a chain
/// without a JWS around it. The answer is the leaf's public key.
public enum CertificateChain {
    /// Longest accepted chain text (three certificates are a few KB).
    public static let maximumLength = 1 << 16

    /// `x5c`: a JSON array of standard-base64 DER certificates, leaf first. `time`: Unix
    /// seconds. A test anchor that is not one DER certificate is `.EJWS_CERTIFICATE` here: it is
    /// data under check, like the chain.
    public static func verifiedLeafKeyPEM(x5c: [UInt8], testAnchor: [UInt8]?, at time: Int64) throws(GateKitError) -> String {
        guard x5c.count <= maximumLength else { throw GateKitError(.ETOOLARGE, "x5c is longer than \(maximumLength) bytes") }
        let parsed: JSONValue
        do { parsed = try JSONParser.parse(x5c) } catch { throw GateKitError(.EJWS_MALFORMED, "x5c is not JSON: \(error.message)") }
        guard case let .array(items) = parsed else { throw GateKitError(.EJWS_MALFORMED, "x5c is not a JSON array") }
        guard items.count <= 8 else { throw GateKitError(.EJWS_CHAIN_LENGTH, "x5c has \(items.count) certificates; exactly 3 are required") }
        var certificates: [[UInt8]] = []
        for (i, item) in items.enumerated() {
            guard case let .string(text) = item, !text.isEmpty,
                  let der = Base64.decode(text.utf8, alphabet: .standard), !der.isEmpty else {
                throw GateKitError(.EJWS_CERTIFICATE, "x5c[\(i)] is not a base64 certificate")
            }
            certificates.append(der)
        }
        do throws(GateKitError) {
            return try X5CChain.verifiedChain(certificates, at: time, testAnchor: testAnchor).leafPublicKeyPEM()
        } catch where error.code == .EINVAL {
            // X5CChain's one invalid argument is an anchor that does not decode: data here.
            throw GateKitError(.EJWS_CERTIFICATE, "the test anchor is not a DER certificate: \(error.message)")
        }
    }
}
