/// The known name nearest to one that matched nothing — a typo's likely intent, for messages
/// that say what to do ("did you mean …?"). The same name in another case is nearest; otherwise
/// the fewest single-byte edits (insert, delete, substitute), at most `maximumEdits`, of equals
/// the first in byte order (so the answer never depends on the order names come in). Bounded
/// work: names longer than `maximumLength` are never compared, and at most `maximumCandidates`
/// are looked at, so a question about a hostile name costs the same as any other.
public enum NearestName {
    public static let maximumEdits = 2
    static let maximumLength = 256
    static let maximumCandidates = 20_000

    public static func nearest<Names: Sequence>(to name: String, among names: Names) -> String? where Names.Element == String {
        let wanted = Array(name.utf8)
        guard !wanted.isEmpty, wanted.count <= maximumLength else { return nil }
        let folded = wanted.map(lowercased)
        var best: (name: String, edits: Int)?
        for candidate in names.prefix(maximumCandidates) {
            let bytes = Array(candidate.utf8)
            guard bytes.count <= maximumLength, bytes != wanted else { continue }
            if bytes.count == wanted.count, bytes.map(lowercased) == folded { return candidate }
            guard let edits = distance(wanted, bytes, atMost: best?.edits ?? maximumEdits) else { continue }
            if best.map({ edits < $0.edits || (edits == $0.edits && candidate < $0.name) }) ?? true { best = (candidate, edits) }
        }
        return best?.name
    }

    private static func lowercased(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }

    /// The edit distance between a and b when it is at most `limit`, else nil (one row at a time;
    /// stops as soon as every entry of a row exceeds the limit).
    static func distance(_ a: [UInt8], _ b: [UInt8], atMost limit: Int) -> Int? {
        guard abs(a.count - b.count) <= limit else { return nil }
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowBest = current[0]
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitute, previous[j] + 1, current[j - 1] + 1)
                rowBest = min(rowBest, current[j])
            }
            if rowBest > limit { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
