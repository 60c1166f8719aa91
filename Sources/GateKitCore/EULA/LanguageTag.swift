import GateKitSupport

/// BCP 47 language tags as EULA translations are keyed: one canonical spelling per tag (tags
/// are case-insensitive: "DE-at" is "de-AT"), and the lookup fallback of RFC 4647 §3.4 —
/// drop the last subtag until one is published, then the document's default language.
public enum LanguageTag {
    /// The tag in BCP 47's conventional case: the language lowercase, a 4-letter script
    /// titlecase ("Latn"), a 2-letter region uppercase ("AT"), the rest lowercase. A tag that
    /// is not well-formed is `.EINVAL`, naming `name`.
    public static func canonical(_ tag: String, name: String = "language") throws(GateKitError) -> String {
        do {
            try EULAConsent.validate(locale: tag)
        } catch {
            throw .invalid("\(name) \(Quoted.text(tag)) is not a BCP 47 language tag (like \"de-AT\")")
        }
        var out: [String] = []
        for (i, subtag) in tag.split(separator: "-").enumerated() {
            let lower = subtag.lowercased()
            if i > 0 && subtag.count == 2 && subtag.allSatisfy(\.isLetter) {
                out.append(lower.uppercased())
            } else if i > 0 && subtag.count == 4 && subtag.allSatisfy(\.isLetter) {
                out.append(lower.prefix(1).uppercased() + lower.dropFirst())
            } else {
                out.append(lower)
            }
        }
        return out.joined(separator: "-")
    }

    /// The tags to try for `canonical`, most specific first: "de-Latn-AT", "de-Latn", "de".
    /// A single-letter subtag (an extension's singleton) is dropped with the subtag after it.
    public static func fallbacks(_ canonical: String) -> [String] {
        var subtags = canonical.split(separator: "-").map(String.init)
        var out: [String] = []
        while !subtags.isEmpty {
            out.append(subtags.joined(separator: "-"))
            subtags.removeLast()
            if subtags.count > 1, subtags.last?.count == 1 { subtags.removeLast() }
        }
        return out
    }
}
