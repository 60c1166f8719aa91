import Glibc

/// `make static` links the C++ runtime in, and its std::random_device references `arc4random`,
/// which glibc has only since 2.36: this definition binds that reference inside the library, so
/// the release library (and the manylinux_2_35 wheel) still loads on glibc 2.35. The version
/// script keeps it local: hosts never see it. Neither GateKit nor the Swift runtime calls it; if
/// anything did, it answers with the kernel's randomness (/dev/urandom), and like glibc's it
/// never fails quietly: without a source of randomness it aborts, as glibc's does.
@_cdecl("arc4random")
public func staticRuntimeArc4random() -> UInt32 {
    var value: UInt32 = 0
    let size = MemoryLayout<UInt32>.size
    let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
    if fd >= 0 {
        defer { close(fd) }
        var got = 0
        while got < size {
            let n = withUnsafeMutableBytes(of: &value) { read(fd, $0.baseAddress.map { $0 + got }, size - got) }
            if n > 0 { got += n } else if n < 0 && errno == EINTR { continue } else { break }
        }
        if got == size { return value }
    }
    abort()
}
