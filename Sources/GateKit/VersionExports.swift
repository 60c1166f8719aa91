import CGateKitHeader
import Glibc
import GateKitJWS
import GateKitSupport

@c(gatekit_version)
public func gatekitVersion() -> UnsafePointer<CChar>? {
    UnsafeRawPointer(GateKitVersion.string.utf8Start).assumingMemoryBound(to: CChar.self)
}

@c(gatekit_version_number)
public func gatekitVersionNumber() -> Int32 {
    Int32(GateKitVersion.number)
}

@c(gatekit_strerror)
public func gatekitStrerror(_ code: Int32) -> UnsafePointer<CChar>? {
    let text: StaticString = code == 0 ? "success" : (ErrorCodes.summary(code) ?? "unknown error")
    return UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@c(gatekit_last_error)
public func gatekitLastError() -> UnsafePointer<CChar>? {
    LastError.current
}

@c(gatekit_free)
public func gatekitFree(_ ptr: UnsafeMutableRawPointer?) {
    free(ptr)
}

@c(gatekit_hash_hex_size)
public func gatekitHashHexSize() -> Int {
    Int(GATEKIT_HASH_HEX_SIZE)
}

@c(gatekit_clear_caches)
public func gatekitClearCaches() {
    ProcessCaches.clearAll()
}
