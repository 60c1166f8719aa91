/// The roll-up's packed values (`RollupDayChange`, `RollupPaid`) as LEB128 numbers: an
/// unsigned number seven bits a byte, low bits first, the high bit saying more follow; a
/// signed one zigzag-encoded first, so small magnitudes of either sign stay short.
struct RollupBytes {
    private(set) var bytes: [UInt8] = []

    mutating func unsigned(_ n: UInt64) {
        var n = n
        while n >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: n) | 0x80)
            n >>= 7
        }
        bytes.append(UInt8(n))
    }

    mutating func signed(_ n: Int64) {
        unsigned(UInt64(bitPattern: (n << 1) ^ (n >> 63)))
    }

    /// Reads numbers back, never past the end: nil for a number cut short or longer than 64 bits.
    struct Reader {
        private let bytes: [UInt8]
        private var at = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { at >= bytes.count }

        mutating func unsigned() -> UInt64? {
            var n: UInt64 = 0
            for shift in stride(from: UInt64(0), to: 64, by: 7) {
                guard at < bytes.count else { return nil }
                let byte = bytes[at]
                at += 1
                n |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return n }
            }
            return nil
        }

        mutating func signed() -> Int64? {
            unsigned().map { Int64(bitPattern: ($0 >> 1) ^ (0 &- ($0 & 1))) }
        }
    }
}
