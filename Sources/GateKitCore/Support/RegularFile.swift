import Glibc

/// Opens a path for reading only if it is a regular file, with the error codes every reader
/// shares: a missing file is `.ENOTFOUND`; a folder, device or unreadable file is `.EIO`.
package enum RegularFile {
    /// The open descriptor (the caller closes it) and the file's size.
    package static func openForReading(_ path: String) throws(GateKitError) -> (fd: Int32, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            throw GateKitError(e == ENOENT || e == ENOTDIR ? .ENOTFOUND : .EIO, "cannot open \(Quoted.path(path)): \(String(cString: strerror(e)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw GateKitError.io("cannot stat \(Quoted.path(path))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw GateKitError.io("\(Quoted.path(path)) is not a regular file")
        }
        return (fd, Int64(st.st_size))
    }
}
