/// Every process-wide cache, cleared at once (benchmarks measuring cold paths, tests). None
/// is ever needed for correctness: each answers only where a full computation would agree.
public enum ProcessCaches {
    public static func clearAll() {
        ChainVerifier.shared.clearCache()
        JWSHeaderMemo.shared.removeAll()
        X5CChain.clearTestPolicies()
    }
}
