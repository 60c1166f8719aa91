import Glibc

/// Records of a text export read back from a file, one at a time in bounded memory: JSON lines
/// (a record ends at a newline; JSON strings escape theirs) or CSV (RFC 4180: a record ends at a
/// line break outside double quotes). Each record is returned with its terminator, exactly as
/// written, so a reader can compare bytes.
public final class DelimitedRecords {
    public enum Kind: Sendable { case jsonLines, csv }

    private let fd: Int32
    private let kind: Kind
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// A record longer than this is not one GateKit wrote.
    public static let maximumRecordBytes = 64 << 20

    /// Opens a regular file (`RegularFile`).
    public init(path: String, kind: Kind) throws(GateKitError) {
        fd = try RegularFile.openForReading(path).fd
        self.kind = kind
    }

    deinit { close(fd) }

    /// The next record, nil at the end of the file; a last record without its line break is
    /// returned as it is.
    public func next() throws(GateKitError) -> [UInt8]? {
        var scan = start
        var quoted = false
        while true {
            while scan < buffer.count {
                let c = buffer[scan]
                scan += 1
                if kind == .csv && c == UInt8(ascii: "\"") { quoted.toggle() }
                if c == UInt8(ascii: "\n") && !quoted {
                    defer { start = scan }
                    return Array(buffer[start..<scan])
                }
            }
            guard scan - start <= DelimitedRecords.maximumRecordBytes else {
                throw GateKitError(.ETOOLARGE, "a record is longer than \(DelimitedRecords.maximumRecordBytes) bytes")
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return Array(buffer[start...])
            }
            // Keep the unread part and read more.
            if start > 0 {
                buffer.removeFirst(start)
                scan -= start
                start = 0
            }
            let old = buffer.count
            buffer += [UInt8](repeating: 0, count: 1 << 16)
            let n = buffer.withUnsafeMutableBytes { (room) -> Int in
                guard let base = room.baseAddress else { return 0 }
                return read(fd, base + old, 1 << 16)
            }
            guard n >= 0 else { throw GateKitError.io("cannot read the export: \(String(cString: strerror(errno)))") }
            buffer.removeLast((1 << 16) - n)
            if n == 0 { atEnd = true }
        }
    }

    /// A CSV record's fields (RFC 4180 quoting; the line break removed).
    public static func csvFields(_ record: [UInt8]) -> [String] {
        var fields: [String] = [], field: [UInt8] = [], quoted = false, i = 0
        var body = record[...]
        if body.last == UInt8(ascii: "\n") { body = body.dropLast() }
        if body.last == UInt8(ascii: "\r") { body = body.dropLast() }
        let bytes = Array(body)
        while i < bytes.count {
            let c = bytes[i]
            if quoted {
                if c == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "\"") { field.append(c); i += 1 } else { quoted = false }
                } else {
                    field.append(c)
                }
            } else if c == UInt8(ascii: "\"") {
                quoted = true
            } else if c == UInt8(ascii: ",") {
                fields.append(String(decoding: field, as: UTF8.self))
                field = []
            } else {
                field.append(c)
            }
            i += 1
        }
        fields.append(String(decoding: field, as: UTF8.self))
        return fields
    }

    /// One CSV field as written: quoted when it holds a comma, a quote or a line break. Text
    /// that a spreadsheet would run as a formula (it begins with =, +, -, @, a tab or a carriage
    /// return) is neutralised as OWASP recommends: a leading ' and quoted (`csvValue` undoes it).
    public static func csvField(_ text: String) -> String {
        if let first = text.utf8.first, formulaStarts.contains(first) {
            return "\"'" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
        }
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// The bytes a spreadsheet reads as the start of a formula.
    static let formulaStarts: Set<UInt8> = [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D]

    /// The text of a field `csvFields` read, its formula neutralisation undone.
    public static func csvValue(_ field: String) -> String {
        let bytes = Array(field.utf8)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "'"), formulaStarts.contains(bytes[1]) else { return field }
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }
}
