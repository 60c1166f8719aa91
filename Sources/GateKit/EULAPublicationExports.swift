import CGateKitHeader
import Glibc
import GateKitEULA
import GateKitSupport

// Published versions (translations, schedules) and the consent export, over `EULAGate`.

/// Bytes of `gatekit_eula_publication` per version.
private let publicationSizes = [MemoryLayout<gatekit_eula_publication>.size]
/// Bytes of `gatekit_eula_presentation` per version.
private let presentationSizes = [MemoryLayout<gatekit_eula_presentation>.size]

@c(eula_publication_init)
public func eulaPublicationInit(_ publication: UnsafeMutablePointer<gatekit_eula_publication>?, _ version: UInt32) -> Int32 {
    exportBoundary("eula_publication_init") { () throws(GateKitError) in
        try Arguments.initialiseVersioned(publication, version: version, sizes: publicationSizes, "gatekit_eula_publication")
    }
}

/// The caller's version: each text read from its file or its buffer (the count is checked
/// before the array is read).
private func publication(_ documentID: String, _ p: UnsafePointer<gatekit_eula_publication>?) throws(GateKitError) -> EULAVersion {
    let c = try Arguments.versioned(p, sizes: publicationSizes, zero: gatekit_eula_publication(), initializer: "eula_publication_init")
    guard c.text_count <= EULAVersion.maximumTexts else {
        throw GateKitError(.ETOOLARGE, "publication->text_count is \(c.text_count); at most \(EULAVersion.maximumTexts)")
    }
    var texts: [EULAVersion.Text] = []
    if c.text_count > 0 {
        guard let given = c.texts else { throw .invalid("publication->text_count is \(c.text_count) but texts is NULL") }
        for i in 0..<Int(c.text_count) {
            let t = given[i], name = "publication->texts[\(i)]"
            let language = try Arguments.string(t.language, "\(name).language")
            let bytes: [UInt8]
            if let path = try Arguments.optionalString(t.path, "\(name).path") {
                guard t.bytes == nil && t.length == 0 else { throw .invalid("\(name) has both a path and bytes") }
                bytes = try FileBytes.read(path, limit: EULAVersion.maximumTextBytes)
            } else {
                guard t.length <= EULAVersion.maximumTextBytes else {
                    throw GateKitError(.ETOOLARGE, "\(name).length is \(t.length); at most \(EULAVersion.maximumTextBytes)")
                }
                bytes = Array(try Arguments.buffer(t.bytes, Int(t.length), "\(name).bytes"))
            }
            texts.append(EULAVersion.Text(language: language, bytes: bytes))
        }
    }
    return EULAVersion(documentID: documentID, label: try Arguments.string(c.label, "publication->label"),
                       effectiveMilliseconds: c.effective_ms == 0 ? nil : c.effective_ms, graceMilliseconds: c.grace_ms,
                       defaultLanguage: try Arguments.string(c.default_language, "publication->default_language"), texts: texts)
}

@c(eula_publish)
public func eulaPublish(_ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?, _ p: UnsafePointer<gatekit_eula_publication>?) -> Int32 {
    exportBoundary("eula_publish") { () throws(GateKitError) in
        let handle = try StoreHandle.from(store)
        try handle.eula.publish(try publication(try Arguments.string(documentID, "document_id"), p))
        return GATEKIT_OK
    }
}

/// Copies `text` into a fixed `char[N]` member of a C struct, NUL-terminated.
private func copy<T>(_ text: String, into member: inout T) {
    withUnsafeMutableBytes(of: &member) { raw in
        guard let base = raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count > 0 else { return }
        Owned.copy(text, into: base, capacity: raw.count)
    }
}

@c(eula_should_present_at)
public func eulaShouldPresentAt(_ out: UnsafeMutablePointer<gatekit_eula_presentation>?, _ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?,
                                _ userName: UnsafePointer<CChar>?, _ language: UnsafePointer<CChar>?, _ at: Int64) -> Int32 {
    exportBoundary("eula_should_present_at") { () throws(GateKitError) in
        let outBytes = try out.map { (p) throws(GateKitError) in
            try Arguments.outputBytes(p, sizes: presentationSizes, constant: "GATEKIT_EULA_PRESENTATION_VERSION")
        }
        let handle = try StoreHandle.from(store)
        let answer = try handle.eula.presentation(
            documentID: try Arguments.string(documentID, "document_id"), user: try user(userName),
            language: try Arguments.optionalString(language, "language"), at: at == 0 ? nil : at)
        if let out, let outBytes {
            var filled = gatekit_eula_presentation()
            filled.version = UnsafeRawPointer(out).loadUnaligned(as: UInt32.self)
            filled.status = answer.status.rawValue
            copy(answer.label, into: &filled.label)
            copy(answer.language, into: &filled.language)
            copy(answer.hash, into: &filled.hash)
            filled.effective_ms = answer.effectiveMilliseconds
            filled.required_at_ms = answer.requiredAtMilliseconds
            filled.next_effective_ms = answer.nextEffectiveMilliseconds ?? 0
            Arguments.fill(out, with: filled, bytes: outBytes)
        }
        return answer.status == .required ? 1 : 0
    }
}

@c(eula_text)
public func eulaText(_ outBytes: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ outLength: UnsafeMutablePointer<Int>?, _ store: OpaquePointer?,
                     _ documentID: UnsafePointer<CChar>?, _ hash: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("eula_text") { () throws(GateKitError) in
        let outBytes = try Arguments.out(outBytes, "out_bytes"), outLength = try Arguments.out(outLength, "out_length")
        outBytes.pointee = nil
        outLength.pointee = 0
        let text = try StoreHandle.from(store).eula.text(documentID: try Arguments.string(documentID, "document_id"),
                                                         hash: try Arguments.string(hash, "hash"))
        guard let copy = malloc(text.count + 1) else { throw GateKitError(.ENOMEM, "cannot allocate \(text.count + 1) bytes") }
        text.withUnsafeBytes { if let base = $0.baseAddress { copy.copyMemory(from: base, byteCount: text.count) } }
        copy.storeBytes(of: 0, toByteOffset: text.count, as: UInt8.self)
        outBytes.pointee = copy
        outLength.pointee = text.count
        return GATEKIT_OK
    }
}

@c(eula_export)
public func eulaExport(_ outCount: UnsafeMutablePointer<Int64>?, _ store: OpaquePointer?, _ documentID: UnsafePointer<CChar>?,
                       _ userName: UnsafePointer<CChar>?, _ flags: UInt32, _ write: gatekit_write_fn?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    exportBoundary("eula_export") { () throws(GateKitError) in
        outCount?.pointee = 0
        let known = UInt32(GATEKIT_EULA_EXPORT_CSV | GATEKIT_EULA_EXPORT_EVERYONE | GATEKIT_EULA_EXPORT_TEXTS)
        guard flags & ~known == 0 else { throw .invalid("flags has unknown bits 0x\(String(flags & ~known, radix: 16))") }
        guard let write else { throw .invalid("write is NULL") }
        let everyone = flags & UInt32(GATEKIT_EULA_EXPORT_EVERYONE) != 0
        let name = try user(userName)
        guard !(everyone && name != nil) else { throw .invalid("user must be NULL with GATEKIT_EULA_EXPORT_EVERYONE") }
        let options = EULAExport.Options(
            format: flags & UInt32(GATEKIT_EULA_EXPORT_CSV) != 0 ? .csv : .jsonLines,
            documentID: try Arguments.optionalString(documentID, "document_id"),
            user: everyone ? .everyone : name.map(EULAGate.UserFilter.named) ?? .defaultUser,
            includeTexts: flags & UInt32(GATEKIT_EULA_EXPORT_TEXTS) != 0)
        let count = try StoreHandle.from(store).eula.export(options) { (chunk) throws(GateKitError) in
            let answer = chunk.withUnsafeBytes { write(context, $0.baseAddress, $0.count) }
            guard answer == 0 else { throw GateKitError.io("the write callback stopped the export (it returned \(answer))") }
        }
        outCount?.pointee = count
        return GATEKIT_OK
    }
}

@c(eula_verify_export)
public func eulaVerifyExport(_ outCount: UnsafeMutablePointer<Int64>?, _ store: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("eula_verify_export") { () throws(GateKitError) in
        outCount?.pointee = 0
        let count = try StoreHandle.from(store).eula.verifyExport(path: try Arguments.string(path, "path"))
        outCount?.pointee = count
        return GATEKIT_OK
    }
}
