import Glibc

/// Reads a whole regular file into memory, refusing files above `limit` bytes.
public enum FileBytes {
    public static func read(_ path: String, limit: Int) throws(GateKitError) -> [UInt8] {
        let (fd, size) = try RegularFile.openForReading(path)
        defer { close(fd) }
        guard size <= limit else { throw GateKitError(.ETOOLARGE, "\(Quoted.path(path)) is \(size) bytes; the limit is \(limit)") }
        return try read(fd: fd, size: size, path: path)
    }

    /// The `size` bytes of an open descriptor (fewer if the file shrank meanwhile).
    static func read(fd: Int32, size: Int64, path: String) throws(GateKitError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        while filled < out.count {
            let n = out.withUnsafeMutableBytes { b in Glibc.read(fd, b.baseAddress.map { $0 + filled }, b.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw GateKitError.io("cannot read \(Quoted.path(path)): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
        }
        return filled == out.count ? out : Array(out[0..<filled])
    }
}
