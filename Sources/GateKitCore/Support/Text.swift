/// Searching text by its UTF-8 bytes: a path's "..", a server's message, a key file's "PRIVATE
/// KEY". The standard library's `contains(_: some StringProtocol)` lives in the toolchain's
/// regex module, which GateKit does not link (Package.swift, `noRegexModules`).
public enum Text {
    /// Whether `needle`'s bytes occur in `haystack`'s, in order and together.
    public static func contains(_ haystack: some StringProtocol, _ needle: some StringProtocol) -> Bool {
        let h = Array(haystack.utf8), n = Array(needle.utf8)
        guard !n.isEmpty else { return true }
        guard h.count >= n.count else { return false }
        for start in 0...(h.count - n.count) where h[start] == n[0] {
            if h[start..<(start + n.count)].elementsEqual(n) { return true }
        }
        return false
    }

    /// The pieces of `text` between occurrences of `separator` (none empty-dropped: as `split`
    /// with `omittingEmptySubsequences: false`).
    public static func pieces(_ text: String, separatedBy separator: String) -> [Substring] {
        let sep = Array(separator.utf8)
        guard !sep.isEmpty else { return [text[...]] }
        var out: [Substring] = []
        let utf8 = text.utf8
        var pieceStart = utf8.startIndex, i = utf8.startIndex
        while i != utf8.endIndex {
            if utf8[i...].starts(with: sep) {
                out.append(text[pieceStart..<i])
                i = utf8.index(i, offsetBy: sep.count)
                pieceStart = i
            } else {
                i = utf8.index(after: i)
            }
        }
        out.append(text[pieceStart..<utf8.endIndex])
        return out
    }
}
