import GateKitTrust

/// Every process-wide cache, cleared at once (benchmarks measuring cold paths, tests). None
/// is ever needed for correctness: each answers only where a full computation would agree.
/// It lives with signed data, the highest layer whose caches it clears (Trust's chain cache
/// and JWS's header memo), so no lower layer reaches up to them.
public enum ProcessCaches {
    public static func clearAll() {
        ChainVerifier.shared.clearCache()
        JWSHeaderMemo.shared.removeAll()
        X5CChain.clearTestPolicies()
    }
}
