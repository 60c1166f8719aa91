import Glibc

/// Which IP addresses are on the public internet: what a URL a team types in (a webhook
/// endpoint) may reach, so that it cannot make GateKit call the host's own services, its
/// network's or a cloud's metadata server (server-side request forgery). The ranges are IANA's
/// special-purpose registries (RFC 6890 and its updates) for IPv4 and IPv6.
package enum PublicAddress {
    /// `bytes`: 4 (IPv4) or 16 (IPv6) bytes in network order. Anything else is not public.
    package static func isPublic(_ bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: return isPublicV4(bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: return isPublicV6(bytes)
        default: return false
        }
    }

    /// Whether `bytes` (as `isPublic` takes them) is a loopback address: 127.0.0.0/8, ::1, or
    /// 127.0.0.0/8 mapped into IPv6.
    package static func isLoopback(_ bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: return bytes[0] == 127
        case 16:
            if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 }
            return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        default: return false
        }
    }

    /// The bytes of `host` when it is an IP literal (IPv6 with or without brackets), else nil.
    package static func literal(_ host: String) -> [UInt8]? {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static func isPublicV4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Bool {
        switch (a, b) {
        case (0, _), (10, _), (127, _): return false                 // "this network", private, loopback
        case (100, 64...127): return false                           // carrier-grade NAT
        case (169, 254): return false                                // link-local (cloud metadata)
        case (172, 16...31), (192, 168): return false                // private
        case (192, 0) where c == 0 || c == 2: return false            // IETF protocol assignments, TEST-NET-1
        case (198, 18...19): return false                            // benchmarking
        case (198, 51) where c == 100, (203, 0) where c == 113: return false  // TEST-NET-2, -3
        case (224...255, _): return false                            // multicast, reserved, broadcast
        default: return true
        }
    }

    private static func isPublicV6(_ b: [UInt8]) -> Bool {
        let zeros10 = b[0..<10].allSatisfy { $0 == 0 }
        if zeros10, b[10] == 0xFF, b[11] == 0xFF { return isPublicV4(b[12], b[13], b[14], b[15]) }  // IPv4-mapped
        if b[0..<12].allSatisfy({ $0 == 0 }) { return false }        // unspecified, loopback, IPv4-compatible
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4..<12].allSatisfy({ $0 == 0 }) {
            return isPublicV4(b[12], b[13], b[14], b[15])             // NAT64: the IPv4 address behind it
        }
        if b[0] & 0xFE == 0xFC { return false }                      // unique local
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return false }        // link-local
        if b[0] == 0xFF { return false }                             // multicast
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return false }  // documentation
        if b[0] == 0x01, b[1..<8].allSatisfy({ $0 == 0 }) { return false }          // discard-only
        return true
    }
}
