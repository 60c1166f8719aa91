import Glibc
import GateKitSupport

/// Who may share a store's files.
public enum StoreSharing: Sendable {
    /// The default: only the user running GateKit (files 0600, folders 0700).
    case ownerOnly
    /// A group of users (files 0660, folders 0770): other owners and group write are accepted.
    case group

    var fileMode: mode_t { self == .group ? 0o660 : 0o600 }
    var folderMode: mode_t { self == .group ? 0o770 : 0o700 }
    /// Permission bits an existing file of ours is narrowed to.
    var allowedBits: mode_t { self == .group ? 0o7770 : 0o7700 }
}

/// The rules a store's files meet before SQLite touches them, so that no other local user can
/// read the decisions, plant rows, or redirect the store with a symbolic link:
/// - the folder is owned by the user or root (any owner when group-shared) and nobody else
///   can write it, unless it has the sticky bit (then others cannot replace our files);
/// - the store and its companions (`-wal`, `-shm`, `-journal`) are regular files, never
///   links, owned by the user (any owner when group-shared), writable by no other user
///   (group write accepted when group-shared);
/// - a missing store is created here, with O_EXCL|O_NOFOLLOW and exactly the sharing's
///   mode; an existing file of the user's that others could read is narrowed to it.
/// SQLite creates the companions with the store file's own mode.
enum StoreFiles {
    static let companions = ["-wal", "-shm", "-journal"]

    /// What the checks learnt, so nothing is examined twice: how SQLite must open the file,
    /// and its size (0 for a store created here).
    struct Facts {
        var access: SQLiteConnection.Access
        var size: Int64
    }

    /// Checks (and creates) the store's files. On a read-only file system the store can only
    /// be read: with its write-ahead log when that still holds decisions, else as immutable.
    static func secure(_ path: String, sharing: StoreSharing) throws(GateKitError) -> Facts {
        let folder = FileDescription.folder(of: path)
        var folderStat = stat()
        guard stat(folder, &folderStat) == 0 else {
            throw .io("cannot examine the store's folder \(Quoted.path(folder)): \(String(cString: strerror(errno)))")
        }
        try checkFolder(folder, folderStat, sharing: sharing)
        var fs = statvfs()
        let readOnlyFileSystem = statvfs(folder, &fs) == 0 && fs.f_flag & UInt(ST_RDONLY) != 0

        var st = stat()
        if lstat(path, &st) != 0 {
            guard errno == ENOENT else {
                throw .io("cannot examine store \(Quoted.path(path)): \(String(cString: strerror(errno)))")
            }
            guard !readOnlyFileSystem else {
                throw GateKitError(.EREADONLY, "store \(Quoted.path(path)) does not exist and cannot be created: its folder is on a read-only file system")
            }
            if try create(path, sharing: sharing) { return Facts(access: .readWrite, size: 0) }
            guard lstat(path, &st) == 0 else {  // another process created it first
                throw .io("cannot examine store \(Quoted.path(path)): \(String(cString: strerror(errno)))")
            }
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw .invalid("store path \(Quoted.path(path)) is a directory") }
        try checkFile(path, st, role: "store", sharing: sharing, narrow: !readOnlyFileSystem)
        var pendingLog = false
        for suffix in companions {
            let companion = path + suffix
            var cst = stat()
            guard lstat(companion, &cst) == 0 else {
                guard errno == ENOENT else {
                    throw .io("cannot examine \(Quoted.path(companion)): \(String(cString: strerror(errno)))")
                }
                continue
            }
            try checkFile(companion, cst, role: "the store's \(suffix.dropFirst()) file", sharing: sharing, narrow: !readOnlyFileSystem)
            if suffix == "-wal" { pendingLog = cst.st_size > 0 }
        }
        let access: SQLiteConnection.Access = !readOnlyFileSystem ? .readWrite
            : pendingLog ? .readOnlyWithLog : .readOnlyImmutable
        return Facts(access: access, size: Int64(st.st_size))
    }

    /// Creates an empty store file with exactly the sharing's mode. False when another
    /// process created it first.
    private static func create(_ path: String, sharing: StoreSharing) throws(GateKitError) -> Bool {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, sharing.fileMode)
        guard fd >= 0 else {
            if errno == EEXIST { return false }
            let code: GateKitError.Code = errno == EROFS ? .EREADONLY : .EIO
            throw GateKitError(code, "cannot create store \(Quoted.path(path)): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        // open() applied the umask; the file is new and ours, so set the mode exactly.
        guard fchmod(fd, sharing.fileMode) == 0 else {
            throw .io("cannot set the mode of the new store \(Quoted.path(path)): \(String(cString: strerror(errno)))")
        }
        return true
    }

    private static func checkFolder(_ folder: String, _ st: stat, sharing: StoreSharing) throws(GateKitError) {
        let mode = st.st_mode
        guard (mode & S_IFMT) == S_IFDIR else { throw .io("\(Quoted.path(folder)) is not a folder") }
        let me = geteuid()
        if sharing == .ownerOnly && st.st_uid != me && st.st_uid != 0 {
            throw unsafe("the store's folder \(Quoted.path(folder)) belongs to \(FileDescription.owner(st.st_uid)) (mode \(FileDescription.mode(mode))), not to the user running GateKit (\(FileDescription.owner(me))): that user could replace the store")
        }
        let sticky = mode & S_ISVTX != 0
        if mode & S_IWOTH != 0 && !sticky {
            throw unsafe("the store's folder \(Quoted.path(folder)) is writable by every user (mode \(FileDescription.mode(mode))) without the sticky bit: anyone could replace the store")
        }
        if sharing == .ownerOnly && mode & S_IWGRP != 0 && !sticky {
            throw unsafe("the store's folder \(Quoted.path(folder)) is writable by its group \(FileDescription.group(st.st_gid)) (mode \(FileDescription.mode(mode))): another user could replace the store (a group-shared store opts in with GATEKIT_STORE_GROUP_SHARED)")
        }
    }

    private static func checkFile(_ path: String, _ st: stat, role: String, sharing: StoreSharing, narrow: Bool) throws(GateKitError) {
        let mode = st.st_mode
        if (mode & S_IFMT) == S_IFLNK {
            throw unsafe("\(role) \(Quoted.path(path)) is a symbolic link; GateKit never follows a link at a store path (remove the link, or open the file it points to by its own path)")
        }
        guard (mode & S_IFMT) == S_IFREG else {
            if role == "store" { throw .invalid("store path \(Quoted.path(path)) is not a regular file") }
            throw unsafe("\(role) \(Quoted.path(path)) is not a regular file (mode \(FileDescription.mode(mode))); remove it")
        }
        let me = geteuid()
        if sharing == .ownerOnly && st.st_uid != me {
            throw unsafe("\(role) \(Quoted.path(path)) belongs to \(FileDescription.owner(st.st_uid)) (mode \(FileDescription.mode(mode))); GateKit opens only stores of the user running it (\(FileDescription.owner(me))), since the owner could rewrite every decision (a group-shared store opts in with GATEKIT_STORE_GROUP_SHARED)")
        }
        if mode & S_IWOTH != 0 {
            throw unsafe("\(role) \(Quoted.path(path)) is writable by every user (mode \(FileDescription.mode(mode)), owner \(FileDescription.owner(st.st_uid))): anyone could rewrite its decisions")
        }
        if sharing == .ownerOnly && mode & S_IWGRP != 0 {
            throw unsafe("\(role) \(Quoted.path(path)) is writable by its group \(FileDescription.group(st.st_gid)) (mode \(FileDescription.mode(mode)), owner \(FileDescription.owner(st.st_uid))): other users could rewrite its decisions (a group-shared store opts in with GATEKIT_STORE_GROUP_SHARED)")
        }
        // Ours and readable by others (a store made before GateKit created them 0600): narrow.
        if narrow && st.st_uid == me && mode & ~S_IFMT & ~sharing.allowedBits != 0 {
            narrowMode(path, st, to: mode & ~S_IFMT & sharing.allowedBits)
        }
    }

    /// chmod without following a link: open the file itself, check it is the same inode.
    private static func narrowMode(_ path: String, _ st: stat, to mode: mode_t) {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var now = stat()
        guard fstat(fd, &now) == 0, now.st_ino == st.st_ino, now.st_dev == st.st_dev else { return }
        _ = fchmod(fd, mode)
    }

    private static func unsafe(_ message: String) -> GateKitError {
        GateKitError(.EUNSAFE, message + "; left untouched")
    }
}
