import Glibc

/// An append-only byte buffer in malloc'd memory for documents handed to C: `takeCString()`
/// gives the caller the buffer itself (NUL-terminated, freed with `free`), so a large document
/// is never copied once written. Appends are unchecked copies into reserved room, the fast path
/// of serializers that write hundreds of kilobytes (a 187-purchase receipt's JSON is ~130 KB).
/// Running out of memory is recorded, never a trap: `takeCString` and `bytes` then throw.
/// Noncopyable (one owner of the buffer) and a struct, so appends carry no dynamic
/// exclusivity checks: as a class its stored properties cost a runtime access check per append.
public struct ByteWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>?
    private var capacity: Int
    private var failed = false
    public private(set) var count = 0

    public init(capacity: Int) {
        self.capacity = Swift.max(capacity, 64)
        base = malloc(self.capacity)?.assumingMemoryBound(to: UInt8.self)
        if base == nil { failed = true }
    }

    deinit { free(base) }

    /// A pointer to `n` writable bytes at the end, or nil when memory ran out. The caller
    /// writes them and then calls `advance(n)`.
    @inline(__always)
    public mutating func room(_ n: Int) -> UnsafeMutablePointer<UInt8>? {
        if count &+ n > capacity { grow(to: count &+ n) }
        guard let base else { return nil }
        return base + count
    }

    @inline(__always)
    public mutating func advance(_ n: Int) { count &+= n }

    @inline(never)
    private mutating func grow(to needed: Int) {
        guard !failed else { return }
        var size = capacity
        while size < needed {
            let (doubled, overflow) = size.multipliedReportingOverflow(by: 2)
            guard !overflow else { fail(); return }
            size = doubled
        }
        guard let grown = realloc(base, size) else { fail(); return }
        base = grown.assumingMemoryBound(to: UInt8.self)
        capacity = size
    }

    private mutating func fail() {
        free(base)
        base = nil
        failed = true
        count = 0
        capacity = 0
    }

    @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, let target = room(bytes.count) else { return }
        memcpy(target, source, bytes.count)
        count &+= bytes.count
    }

    @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    public mutating func append(byte: UInt8) {
        guard let target = room(1) else { return }
        target.pointee = byte
        count &+= 1
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// `value` in decimal, without a String.
    public mutating func appendDecimal(_ value: Int64) {
        guard let target = room(20) else { return }
        count &+= ByteWriter.writeDecimal(value, into: target)
    }

    /// Writes `value` in decimal at `target` (room for 20 bytes) and answers how many bytes it
    /// took: two digits per division, written backwards and moved into place.
    public static func writeDecimal(_ value: Int64, into target: UnsafeMutablePointer<UInt8>) -> Int {
        var rest = value.magnitude
        var i = 20
        while rest >= 100 {
            let pair = Int(rest % 100)
            rest /= 100
            i -= 2
            target[i] = digitPairs[pair &* 2]
            target[i + 1] = digitPairs[pair &* 2 + 1]
        }
        if rest >= 10 {
            i -= 2
            target[i] = digitPairs[Int(rest) &* 2]
            target[i + 1] = digitPairs[Int(rest) &* 2 + 1]
        } else {
            i -= 1
            target[i] = UInt8(truncatingIfNeeded: 0x30 &+ rest)
        }
        if value < 0 {
            i -= 1
            target[i] = 0x2D
        }
        let length = 20 - i
        if i > 0 { memmove(target, target + i, length) }
        return length
    }

    /// "00" … "99".
    private static let digitPairs: [UInt8] = (0..<100).flatMap { (n: Int) -> [UInt8] in
        [UInt8(truncatingIfNeeded: 0x30 + n / 10), UInt8(truncatingIfNeeded: 0x30 + n % 10)]
    }

    /// `bytes` (valid UTF-8) as a JSON string, quoted and escaped as `JSONWriter` escapes.
    public mutating func appendJSONString(_ bytes: UnsafeRawBufferPointer) {
        append(byte: 0x22)
        if !bytes.contains(where: JSONWriter.needsEscape) {
            append(bytes)
        } else {
            for c in bytes {
                if let sequence = JSONWriter.escapeSequence(for: c) { append(sequence) } else { append(byte: c) }
            }
        }
        append(byte: 0x22)
    }

    /// The bytes as a NUL-terminated C string the caller owns (free with `free`).
    public consuming func takeCString() throws(GateKitError) -> UnsafeMutablePointer<CChar> {
        append(byte: 0)
        guard !failed, let taken = base else {
            _ = consume self
            throw GateKitError(.ENOMEM, "cannot allocate a document's bytes")
        }
        discard self  // the buffer is the caller's now: no deinit
        return UnsafeMutableRawPointer(taken).assumingMemoryBound(to: CChar.self)
    }

    /// A copy of the bytes.
    public func bytes() throws(GateKitError) -> [UInt8] {
        guard !failed else { throw GateKitError(.ENOMEM, "cannot allocate a document's bytes") }
        guard let base else { return [] }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }
}
