import COpenSSL
import Glibc
import GateKitSupport

/// A throw-away PKI shaped like Apple's StoreKit 2 signing chain, kept in a folder of its
/// own, so a server team can sign realistic App Store data for its tests (`TestSigner`):
///
///     root.der          the test anchor (self-signed; pass it as test_anchor_der)
///     intermediate.der  signed by the root, with Apple's WWDR marker OID 1.2.840.113635.100.6.2.1
///     leaf.der          signed by the intermediate, with the signing marker 1.2.840.113635.100.6.11.1
///     leaf.key          the leaf's private key (PKCS#8 PEM)
///
/// Data signed under it is test-signed: it verifies only when the caller names root.der as its
/// test anchor, is marked so, and is refused as Production data (`JWSVerifier`).
public enum TestPKI {
    public static let rootFile = "root.der"
    public static let intermediateFile = "intermediate.der"
    public static let leafFile = "leaf.der"
    public static let keyFile = "leaf.key"
    /// Largest file of a PKI read back (certificates and the key are well under 4 KiB).
    static let fileLimit = 64 * 1024

    /// Makes a new PKI in `directory`: created owner-only (0700) when absent; an existing one
    /// must be a real folder of this user that no one else can write. Every file is created
    /// owner-only and never over an existing file or through a symbolic link.
    public static func create(in directory: String) throws(GateKitError) {
        guard !directory.isEmpty, !directory.utf8.contains(0) else { throw .invalid("the folder is empty or contains NUL") }
        let folder = try openFolder(directory)
        defer { close(folder) }
        let root = try TestCertificate(role: .root, commonName: "GateKit Test Root", serial: 1, issuer: nil)
        defer { root.free() }
        let intermediate = try TestCertificate(role: .intermediate, commonName: "GateKit Test Intermediate", serial: 2, issuer: root)
        defer { intermediate.free() }
        let leaf = try TestCertificate(role: .leaf, commonName: "GateKit Test Signer", serial: 3, issuer: intermediate)
        defer { leaf.free() }
        // The key first: a folder with certificates but no key is never left behind by a refusal.
        try write(try leaf.privateKeyPEM, named: keyFile, in: folder, directory: directory)
        try write(try leaf.der, named: leafFile, in: folder, directory: directory)
        try write(try intermediate.der, named: intermediateFile, in: folder, directory: directory)
        try write(try root.der, named: rootFile, in: folder, directory: directory)
    }

    /// The PKI's files, read only if no other user could have written them (`TrustedFile`).
    struct Files {
        let root: [UInt8]
        let intermediate: [UInt8]
        let leaf: [UInt8]
        let keyPEM: [UInt8]
    }

    static func load(from directory: String) throws(GateKitError) -> Files {
        guard !directory.isEmpty, !directory.utf8.contains(0) else { throw .invalid("the folder is empty or contains NUL") }
        func read(_ name: String, _ what: String) throws(GateKitError) -> [UInt8] {
            try TrustedFile.read(directory + "/" + name, limit: fileLimit, what: what)
        }
        return Files(root: try read(rootFile, "the test root"), intermediate: try read(intermediateFile, "the test intermediate"),
                     leaf: try read(leafFile, "the test signing certificate"), keyPEM: try read(keyFile, "the test signing key"))
    }

    private static func openFolder(_ directory: String) throws(GateKitError) -> Int32 {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw GateKitError.io("cannot create the folder \(Quoted.path(directory)): \(String(cString: strerror(errno)))")
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            if e == ELOOP || e == ENOTDIR {
                throw GateKitError(.EUNSAFE, "cannot use \(Quoted.path(directory)) for a test PKI: it is a symbolic link or not a folder")
            }
            throw GateKitError.io("cannot use \(Quoted.path(directory)) for a test PKI: \(String(cString: strerror(e)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw GateKitError.io("cannot stat \(Quoted.path(directory))")
        }
        guard st.st_uid == geteuid(), st.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            close(fd)
            throw GateKitError(.EUNSAFE, "the folder \(Quoted.path(directory)) is another user's or others can write it (owner \(st.st_uid), mode \(FileDescription.mode(st.st_mode))): a signing key is not written there")
        }
        return fd
    }

    private static func write(_ bytes: [UInt8], named name: String, in folder: Int32, directory: String) throws(GateKitError) {
        let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let e = errno
            if e == EEXIST {
                throw GateKitError.io("\(Quoted.path(directory + "/" + name)) already exists: a test PKI is made once, in a folder of its own (remove the old one, or choose another folder)")
            }
            throw GateKitError.io("cannot create \(Quoted.path(directory + "/" + name)): \(String(cString: strerror(e)))")
        }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return Glibc.write(fd, base + offset, buffer.count - offset)
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw GateKitError.io("cannot write \(Quoted.path(directory + "/" + name)): \(String(cString: strerror(errno)))") }
            offset += n
        }
        guard fsync(fd) == 0 else { throw GateKitError.io("cannot sync \(Quoted.path(directory + "/" + name))") }
    }
}
