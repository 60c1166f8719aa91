import CCurl
import GateKitSupport

/// libcurl, loaded on the first App Store or Play client (the CCurl shim says why).
enum CurlLibrary {
    nonisolated(unsafe) private static let loaded: Result<UnsafePointer<gk_curl>, GateKitError> = {
        let result = LazyLibrary.load(["libcurl.so.4", "libcurl.so"], code: .EAPPSTORE_TRANSPORT,
                                      install: "Debian: libcurl4", bind: { gk_curl_bind($0, $1) })
        // Once, before any handle exists: curl_global_init is not thread-safe on old libcurls,
        // and this initialiser runs exactly once (Swift's lazy statics are thread-safe).
        guard case let .success(curl) = result else { return result }
        let code = curl.pointee.curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard code == CURLE_OK else {
            return .failure(GateKitError(.EAPPSTORE_TRANSPORT, "curl_global_init failed: \(describe(code, curl))"))
        }
        return result
    }()

    /// libcurl's text for an error code.
    static func describe(_ code: CURLcode, _ curl: UnsafePointer<gk_curl>) -> String {
        curl.pointee.curl_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    /// libcurl's functions; the same table for the life of the process. A failure to load
    /// carries `code`, the asking client's transport code.
    static func functions(_ code: GateKitError.Code) throws(GateKitError) -> UnsafePointer<gk_curl> {
        switch loaded {
        case let .success(curl): return curl
        case let .failure(error): throw GateKitError(code, error.message)
        }
    }
}
