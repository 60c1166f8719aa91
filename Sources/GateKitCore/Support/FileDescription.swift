import Glibc

/// How GateKit names a file's folder, mode, owner and group in its messages: the store,
/// trusted files and test PKI folders say it the same way.
package enum FileDescription {
    package static func folder(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    package static func mode(_ mode: mode_t) -> String {
        let bits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - bits.count)) + bits
    }

    package static func owner(_ uid: uid_t) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let found = getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0 && result != nil
        guard found, let name = entry.pw_name.map({ String(cString: $0) }) else { return "uid \(uid)" }
        return "uid \(uid) (\(Quoted.text(name)))"
    }

    package static func group(_ gid: gid_t) -> String {
        var entry = Glibc.group()
        var result: UnsafeMutablePointer<Glibc.group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        let found = getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0 && result != nil
        guard found, let name = entry.gr_name.map({ String(cString: $0) }) else { return "gid \(gid)" }
        return "gid \(gid) (\(Quoted.text(name)))"
    }
}
