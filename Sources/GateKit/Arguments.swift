import Glibc
import GateKitSupport
import GateKitTrust

/// Reading C arguments into Swift values, with a precise error for each way they can be wrong.
enum Arguments {
    /// A required NUL-terminated UTF-8 string.
    static func string(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> String {
        guard let p else { throw .invalid("\(name) is NULL") }
        guard let s = String(validatingCString: p) else { throw .invalid("\(name) is not valid UTF-8") }
        return s
    }

    /// An optional NUL-terminated UTF-8 string (NULL gives nil).
    static func optionalString(_ p: UnsafePointer<CChar>?, _ name: String) throws(GateKitError) -> String? {
        guard p != nil else { return nil }
        return try string(p, name)
    }

    /// An optional NUL-terminated byte string of at most `limit` bytes, not necessarily UTF-8.
    static func optionalBytes(_ p: UnsafePointer<CChar>?, _ name: String, limit: Int) throws(GateKitError) -> [UInt8]? {
        guard let p else { return nil }
        let n = strnlen(p, limit + 1)
        guard n <= limit else { throw .invalid("\(name) is longer than \(limit) bytes") }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// `len` bytes at `data`; `data` may be NULL only when `len` is 0.
    static func buffer(_ data: UnsafeRawPointer?, _ len: Int, _ name: String) throws(GateKitError) -> UnsafeRawBufferPointer {
        guard let data else {
            guard len == 0 else { throw .invalid("\(name) is NULL but its length is \(len)") }
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        guard len >= 0 else { throw .invalid("\(name) length is negative") }
        return UnsafeRawBufferPointer(start: data, count: len)
    }

    /// A delivery's body: `len` bytes at `data`, at most `limit` (GATEKIT_ETOOLARGE beyond it).
    static func body(_ data: UnsafeRawPointer?, _ len: Int, limit: Int, _ why: String = "") throws(GateKitError) -> UnsafeRawBufferPointer {
        guard len >= 0 else { throw .invalid("body_len is negative") }
        guard len <= limit else { throw GateKitError(.ETOOLARGE, "body_len \(len) is over \(limit) bytes\(why)") }
        return try buffer(data, len, "body")
    }

    /// A caller's options struct of any version this library knows (version v has
    /// `sizes[v - 1]` bytes), copied into `zero`: never a byte past the caller's struct is
    /// read, and its alignment is not assumed.
    static func versioned<T>(_ p: UnsafePointer<T>?, sizes: [Int], zero: T, initializer: String) throws(GateKitError) -> T {
        guard let p else { throw .invalid("options is NULL") }
        let version = UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)
        guard version >= 1, Int(version) <= sizes.count else {
            throw GateKitError(.EVERSION, "options->version is \(version); this library reads 1 to \(sizes.count) (call \(initializer))")
        }
        var value = zero
        withUnsafeMutableBytes(of: &value) { destination in
            destination.copyMemory(from: UnsafeRawBufferPointer(start: p, count: min(sizes[Int(version) - 1], destination.count)))
        }
        return value
    }

    /// An output struct's version (its first `unsigned int`, set by the caller to its header's
    /// `GATEKIT_*_VERSION`): the bytes of that version's struct, `sizes[version - 1]`. Checked
    /// before any work, so an unknown version leaves the struct untouched.
    static func outputBytes<T>(_ p: UnsafeMutablePointer<T>, sizes: [Int], constant: String) throws(GateKitError) -> Int {
        let version = UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)
        guard version >= 1, Int(version) <= sizes.count else {
            throw GateKitError(.EVERSION, "out->version is \(version); this library fills 1 to \(sizes.count) (set \(constant))")
        }
        return sizes[Int(version) - 1]
    }

    /// Writes `value` into the caller's output struct: only the `bytes` its version has.
    static func fill<T>(_ p: UnsafeMutablePointer<T>, with value: T, bytes: Int) {
        withUnsafeBytes(of: value) { source in
            guard let base = source.baseAddress else { return }
            UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: min(bytes, source.count))
        }
    }

    /// `*_options_init(options, version)`: zeroes exactly the bytes of that version's struct
    /// (`sizes[version - 1]`) and sets its version member (always the first `unsigned int`).
    static func initialiseVersioned<T>(_ p: UnsafeMutablePointer<T>?, version: UInt32, sizes: [Int], _ what: String) throws(GateKitError) -> Int32 {
        guard let p else { throw .invalid("options is NULL") }
        guard version >= 1, Int(version) <= sizes.count else {
            throw GateKitError(.EVERSION, "\(what) version \(version) is unknown to this library (it knows 1 to \(sizes.count))")
        }
        let raw = UnsafeMutableRawPointer(p)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: sizes[Int(version) - 1])
        raw.storeBytes(of: version, as: UInt32.self)
        return 0
    }

    /// An options struct's test anchor (`test_anchor_der`, `test_anchor_len`): nil when both
    /// are unset; the bytes, up to TrustAnchor's limit, otherwise.
    static func testAnchor(_ der: UnsafePointer<UInt8>?, _ length: Int) throws(GateKitError) -> [UInt8]? {
        guard der != nil || length != 0 else { return nil }
        guard length > 0 else { throw .invalid("options->test_anchor_der is set but test_anchor_len is 0") }
        guard length <= TrustAnchor.maximumTestAnchorLength else {
            throw .invalid("options->test_anchor_len is \(UInt(bitPattern: length)); at most \(TrustAnchor.maximumTestAnchorLength)")
        }
        return Array(try buffer(UnsafeRawPointer(der), length, "options->test_anchor_der"))
    }

    static func out<T>(_ p: UnsafeMutablePointer<T>?, _ name: String = "out") throws(GateKitError) -> UnsafeMutablePointer<T> {
        guard let p else { throw .invalid("\(name) is NULL") }
        return p
    }
}

/// Library-owned copies handed to the caller, freed with `gatekit_free` (plain `free`).
enum Owned {
    static func cString(_ s: String) throws(GateKitError) -> UnsafeMutablePointer<CChar> {
        guard let p = strdup(s) else { throw GateKitError(.ENOMEM, "cannot allocate \(s.utf8.count + 1) bytes") }
        return p
    }

    /// UTF-8 without a NUL (JSON GateKit wrote) as a C string, copied once: no `String` between.
    static func cString(utf8 bytes: [UInt8]) throws(GateKitError) -> UnsafeMutablePointer<CChar> {
        guard let p = malloc(bytes.count + 1)?.assumingMemoryBound(to: CChar.self) else {
            throw GateKitError(.ENOMEM, "cannot allocate \(bytes.count + 1) bytes")
        }
        bytes.withUnsafeBytes { UnsafeMutableRawPointer(p).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(p), byteCount: $0.count) }
        p[bytes.count] = 0
        return p
    }

    /// Writes `s` plus NUL into a caller-provided fixed-size buffer.
    static func copy(_ s: String, into out: UnsafeMutablePointer<CChar>, capacity: Int) {
        let bytes = Array(s.utf8.prefix(capacity - 1))
        for (i, b) in bytes.enumerated() { out[i] = CChar(bitPattern: b) }
        out[bytes.count] = 0
    }
}
