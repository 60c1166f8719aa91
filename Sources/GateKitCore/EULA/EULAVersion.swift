import GateKitCrypto
import GateKitSupport

/// One published version of a document: a label the lawyers use ("2026-12"), the instant it
/// takes effect, an optional grace period during which the previous version's acceptance
/// still counts, and its texts — one per language, each identified by its SHA-256. Accepting
/// any text of a version accepts the version.
public struct EULAVersion: Equatable, Sendable {
    public struct Text: Equatable, Sendable {
        /// A BCP 47 tag, canonical once validated.
        public var language: String
        public var bytes: [UInt8]
        /// SHA-256 of `bytes`, set when the version is validated.
        public internal(set) var hash = ""

        public init(language: String, bytes: [UInt8]) {
            self.language = language
            self.bytes = bytes
        }
    }

    public static let maximumLabelBytes = 128
    public static let maximumTexts = 64
    /// A text is what a person reads before agreeing: 16 MiB is far beyond any EULA.
    public static let maximumTextBytes = 16 << 20
    /// Ten years: a grace period is weeks; more is a mistake, not a policy.
    public static let maximumGraceMilliseconds: Int64 = 10 * 366 * 86_400_000

    public var documentID: String
    public var label: String
    /// Unix milliseconds at which this version takes effect; nil: when it is published.
    public var effectiveMilliseconds: Int64?
    public var graceMilliseconds: Int64
    public var defaultLanguage: String
    public var texts: [Text]

    public init(documentID: String, label: String, effectiveMilliseconds: Int64? = nil, graceMilliseconds: Int64 = 0,
                defaultLanguage: String, texts: [Text]) {
        self.documentID = documentID
        self.label = label
        self.effectiveMilliseconds = effectiveMilliseconds
        self.graceMilliseconds = graceMilliseconds
        self.defaultLanguage = defaultLanguage
        self.texts = texts
    }

    /// The version as stored: every part checked, languages canonical. Errors name the part.
    func validated() throws(GateKitError) -> EULAVersion {
        try EULAGate.validate(documentID: documentID)
        guard !label.isEmpty, label.utf8.count <= EULAVersion.maximumLabelBytes else {
            throw .invalid("label must be 1 to \(EULAVersion.maximumLabelBytes) bytes")
        }
        if let effective = effectiveMilliseconds, effective < 0 {
            throw .invalid("effective_ms is \(effective): an instant is milliseconds since 1970 (0: now)")
        }
        guard (0...EULAVersion.maximumGraceMilliseconds).contains(graceMilliseconds) else {
            throw .invalid("grace_ms is \(graceMilliseconds); it must be 0 to \(EULAVersion.maximumGraceMilliseconds) (ten years)")
        }
        guard !texts.isEmpty else { throw .invalid("a version needs at least one text") }
        guard texts.count <= EULAVersion.maximumTexts else {
            throw GateKitError(.ETOOLARGE, "a version has \(texts.count) texts; at most \(EULAVersion.maximumTexts)")
        }
        var out = self
        out.defaultLanguage = try LanguageTag.canonical(defaultLanguage, name: "default_language")
        var languages = Set<String>(), hashes = Set<String>()
        for i in texts.indices {
            out.texts[i].language = try LanguageTag.canonical(texts[i].language, name: "texts[\(i)].language")
            guard texts[i].bytes.count <= EULAVersion.maximumTextBytes else {
                throw GateKitError(.ETOOLARGE, "texts[\(i)] is \(texts[i].bytes.count) bytes; at most \(EULAVersion.maximumTextBytes)")
            }
            out.texts[i].hash = Hex.encode(try Digest.hash(.sha256, texts[i].bytes))
            guard languages.insert(out.texts[i].language).inserted else {
                throw .invalid("language \(out.texts[i].language) is given twice")
            }
            guard hashes.insert(out.texts[i].hash).inserted else {
                throw .invalid("texts[\(i)] (\(out.texts[i].language)) is the same text as another language's")
            }
        }
        guard languages.contains(out.defaultLanguage) else {
            throw .invalid("default_language \(out.defaultLanguage) has no text in this version")
        }
        return out
    }
}
