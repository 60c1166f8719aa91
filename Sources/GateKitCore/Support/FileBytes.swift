import Glibc

/// Reads a whole regular file into memory, refusing files above `limit` bytes.
public enum FileBytes {
    public static func read(_ path: String, limit: Int) throws(GateKitError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw GateKitError(e == ENOENT || e == ENOTDIR ? .notFound : .io, "cannot open '\(path)': \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw GateKitError.io("cannot stat '\(path)'") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw GateKitError.io("'\(path)' is not a regular file") }
        guard st.st_size <= limit else { throw GateKitError(.tooLarge, "'\(path)' is \(st.st_size) bytes; the limit is \(limit)") }
        var out = [UInt8](repeating: 0, count: Int(st.st_size))
        var filled = 0
        while filled < out.count {
            let n = out.withUnsafeMutableBytes { b in Glibc.read(fd, b.baseAddress.map { $0 + filled }, b.count - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw GateKitError.io("cannot read '\(path)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
        }
        return filled == out.count ? out : Array(out[0..<filled])
    }
}
