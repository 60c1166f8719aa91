import CGateKitHeader
import Glibc
import GateKitSupport
import GateKitTestData

// Test data for a host's own tests: a test PKI and App Store data signed under it
// (TestPKI, TestSigner). Everything signed here is test-signed.

@c(jws_test_pki_create)
public func jwsTestPKICreate(_ directory: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("jws_test_pki_create") { () throws(GateKitError) in
        try TestPKI.create(in: try Arguments.string(directory, "directory"))
        return GATEKIT_OK
    }
}

@c(jws_test_sign)
public func jwsTestSign(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ directory: UnsafePointer<CChar>?,
                        _ rawKind: Int32, _ payload: UnsafePointer<CChar>?) -> Int32 {
    exportBoundary("jws_test_sign") { () throws(GateKitError) in
        let out = try Arguments.out(out, "out_jws")
        out.pointee = nil
        let kind = try jwsKind(rawKind)
        guard let payload else { throw .invalid("payload_json is NULL") }
        let length = strnlen(payload, TestSigner.maximumPayloadLength + 1)  // one more: TestSigner names the limit
        let bytes = UnsafeRawBufferPointer(start: payload, count: length)
        let jws = try TestSigner.sign(payload: bytes, kind: kind, pki: try Arguments.string(directory, "pki_directory"))
        out.pointee = try Owned.cString(jws)
        return GATEKIT_OK
    }
}
