import Glibc

/// Reads a file that decides whom to trust (a CA bundle), once, and only if no other user
/// could have written it or swapped it: a regular file, not a symbolic link, owned by this
/// user or root and not writable by group or others, in folders (up to /) that are likewise
/// this user's or root's and not writable by others (a sticky folder such as /tmp excepted,
/// as store folders are judged). The bytes are what the caller uses from then on: the path is
/// never read again, so a file replaced later changes nothing.
package enum TrustedFile {
    /// `secret`: the file holds a private key, so a file other users can read is refused too
    /// (it has leaked already: make a new key, and keep it `chmod 600`).
    package static func read(_ path: String, limit: Int, what: String, secret: Bool = false) throws(GateKitError) -> [UInt8] {
        // Non-blocking: a FIFO planted at the path is refused below instead of waiting for a writer.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            if e == ELOOP { throw GateKitError(.EUNSAFE, "\(what) \(Quoted.path(path)) is a symbolic link (refused: its target could be changed)") }
            throw GateKitError(e == ENOENT || e == ENOTDIR ? .ENOTFOUND : .EIO, "\(what) \(Quoted.path(path)): \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw GateKitError.io("cannot stat \(what) \(Quoted.path(path))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw GateKitError(.EUNSAFE, "\(what) \(Quoted.path(path)) is not a regular file") }
        guard st.st_uid == geteuid() || st.st_uid == 0, st.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw GateKitError(.EUNSAFE, "\(what) \(Quoted.path(path)) can be written by another user (owner \(st.st_uid), mode \(FileDescription.mode(st.st_mode))): refused, as it could have been replaced (chmod go-w)")
        }
        if secret, st.st_mode & (S_IRWXG | S_IRWXO) != 0 {
            throw GateKitError(.EUNSAFE, "\(what) \(Quoted.path(path)) holds a private key and other users can read it (mode \(FileDescription.mode(st.st_mode))): refused; chmod 600 it, and replace the key if others may have read it")
        }
        try checkFolders(of: path, what: what)
        guard st.st_size <= limit else { throw GateKitError(.ETOOLARGE, "\(what) \(Quoted.path(path)) is \(st.st_size) bytes; the limit is \(limit)") }
        return try FileBytes.read(fd: fd, size: Int64(st.st_size), path: path)
    }

    /// Every folder from the file's (resolved) up to /.
    private static func checkFolders(of path: String, what: String) throws(GateKitError) {
        guard let resolved = realpath(FileDescription.folder(of: path), nil) else {
            throw GateKitError.io("cannot resolve the folder of \(what) \(Quoted.path(path)): \(String(cString: strerror(errno)))")
        }
        var folder = String(cString: resolved)
        free(resolved)
        while true {
            var st = stat()
            guard stat(folder, &st) == 0 else { throw GateKitError.io("cannot examine \(Quoted.path(folder)): \(String(cString: strerror(errno)))") }
            let sticky = st.st_mode & S_ISVTX != 0
            if (st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & (S_IWGRP | S_IWOTH) != 0 && !sticky) {
                throw GateKitError(.EUNSAFE, "\(what) \(Quoted.path(path)) is in the folder \(Quoted.path(folder)), which another user can write (owner \(st.st_uid), mode \(FileDescription.mode(st.st_mode))): they could replace it")
            }
            if folder == "/" { return }
            folder = FileDescription.folder(of: folder)
        }
    }
}
