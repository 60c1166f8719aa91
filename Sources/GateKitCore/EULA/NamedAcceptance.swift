import Glibc
import GateKitSupport

/// Headless acceptance, as Chef's license acceptance does it, but bound to one text: an
/// operator names the document and the start of its hash ("terms@3fa1b2c4"), by a flag or an
/// environment variable, after reading it. Only the text whose hash starts so is accepted; a
/// name whose hash differs (the text changed since it was read) is an error, never an
/// acceptance of the new text.
package struct NamedAcceptance: Equatable, Sendable {
    package let documentID: String
    /// 8 to 64 lowercase hex digits.
    package let hashPrefix: String

    package static let minimumPrefixDigits = 8

    /// "doc@prefix" entries separated by commas (a document id may hold "@": the last one
    /// separates). Every entry must be well-formed: one that is not is an error, not ignored.
    package static func parse(_ text: String, from source: String) throws(GateKitError) -> [NamedAcceptance] {
        var out: [NamedAcceptance] = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = raw.trimmingBlanks
            guard let at = entry.lastIndex(of: "@") else {
                throw .invalid("\(source): \(Quoted.text(String(entry))) is not \"document@hash-prefix\"")
            }
            let documentID = String(entry[..<at]), prefix = String(entry[entry.index(after: at)...]).lowercased()
            try EULAGate.validate(documentID: documentID)
            guard (minimumPrefixDigits...64).contains(prefix.utf8.count), Hex.isLowercase(prefix, length: prefix.utf8.count) else {
                throw .invalid("\(source): \(Quoted.text(String(entry))) needs \(minimumPrefixDigits) to 64 hex digits of the text's sha256 after \"@\"")
            }
            out.append(NamedAcceptance(documentID: documentID, hashPrefix: prefix))
        }
        return out
    }

    /// A portable environment variable name (letters, digits, "_", not starting with a digit).
    static func validate(variable: String) throws(GateKitError) {
        let bytes = Array(variable.utf8)
        let valid = (1...255).contains(bytes.count) && !(bytes.first.map { $0 >= 0x30 && $0 <= 0x39 } ?? true)
            && bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }
        guard valid else { throw .invalid("variable \(Quoted.text(variable)) is not an environment variable name") }
    }
}

extension EULAGate {
    /// Accepts the text whose hash is given when `names` names this document with a prefix of
    /// that hash: true when recorded, false when `names` does not name the document.
    /// `.EEULA_HASH_MISMATCH` when it names the document with another text's hash.
    @discardableResult
    public func acceptIfNamed(documentID: String, hash given: String, user: [UInt8]?, names: String, source: String,
                              consent: EULAConsent) throws(GateKitError) -> Bool {
        // Every argument is checked whether or not `names` names the document: a consent the
        // store could not keep is an error now, not at the launch that finally records it.
        try EULAGate.validate(documentID: documentID)
        let hash = try DocumentHash.normalized(given)
        try EULAGate.validate(user: user)
        let consent = try consent.validated()
        let mine = try NamedAcceptance.parse(names, from: source).filter { $0.documentID == documentID }
        guard !mine.isEmpty else { return false }
        guard mine.contains(where: { hash.hasPrefix($0.hashPrefix) }) else {
            let named = mine.map { Quoted.text("\($0.documentID)@\($0.hashPrefix)") }.joined(separator: ", ")
            throw GateKitError(.EEULA_HASH_MISMATCH, "\(named) (from \(source)) does not name this text, whose sha256 is \(hash): it changed since it was named; nothing was accepted")
        }
        try record(.accepted, documentID: documentID, hash: hash, user: user, consent: consent)
        return true
    }

    /// `acceptIfNamed` with the value of the environment variable the host names (unset or
    /// empty: false), recorded with method "environment" and the variable's name in the
    /// metadata ("variable"), unless the host's consent says otherwise.
    @discardableResult
    public func acceptFromEnvironment(documentID: String, hash: String, user: [UInt8]?, variable: String,
                                      consent: EULAConsent) throws(GateKitError) -> Bool {
        try NamedAcceptance.validate(variable: variable)
        try EULAGate.validate(documentID: documentID)
        _ = try DocumentHash.normalized(hash)
        try EULAGate.validate(user: user)
        var consent = try consent.validated()
        guard let raw = getenv(variable) else { return false }
        let value = String(cString: raw)
        guard !value.isEmpty else { return false }
        if consent.method == nil { consent.method = .environment }
        if !consent.metadata.contains(where: { $0.key == "variable" }) { consent.metadata.append(("variable", variable)) }
        return try acceptIfNamed(documentID: documentID, hash: hash, user: user, names: value, source: variable, consent: consent)
    }
}

private extension Substring {
    var trimmingBlanks: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return s
    }
}
