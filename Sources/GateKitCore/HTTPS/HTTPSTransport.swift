import CCurl
import Glibc
import GateKitSupport

/// One HTTPS request, as the App Store and Play clients make it.
package struct HTTPRequest {
    package var method: String
    package var url: String
    package var headers: [String]
    package var body: [UInt8]?

    package init(method: String, url: String, headers: [String], body: [UInt8]?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An HTTP answer: status, the headers the client reads, and the body (bounded).
package struct HTTPResponse {
    package let status: Int
    package let contentType: String?
    /// Seconds from `Retry-After` (429 and 503 answers), when the server sent one.
    package let retryAfter: Int64?
    /// When the server answered (its `Date` header, Unix ms), when it sent one.
    package var serverDate: Int64? = nil
    /// Seconds from `Cache-Control: max-age` (a key set's lifetime), when sent and not no-store.
    package var maxAge: Int64? = nil
    package let body: [UInt8]

    package init(status: Int, contentType: String?, retryAfter: Int64?, serverDate: Int64? = nil, maxAge: Int64? = nil, body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.retryAfter = retryAfter
        self.serverDate = serverDate
        self.maxAge = maxAge
        self.body = body
    }
}

/// HTTPS through libcurl: peer and host always verified, HTTPS only, no redirects followed,
/// answers bounded in size. Idle easy handles are kept, so calls from one client reuse their
/// TLS connections; each handle serves one request at a time, so threads may share a transport.
/// The handles are the process's own: a forked child opens connections of its own.
package final class HTTPSTransport: @unchecked Sendable {
    package struct Settings: Sendable {
        /// PEM bytes of the CAs to trust instead of the system's (read once, by the client).
        package var certificateAuthorities: [UInt8]?
        package var connectTimeoutMilliseconds: Int
        package var userAgent: String
        /// The codes this transport's failures carry: each client's own (App Store, Play, Stripe).
        package var errors: ErrorCodes
        /// Plain HTTP instead of HTTPS: only for the link-local metadata server, which has no
        /// TLS (`MetadataServer` checks the host), and a test's webhook receiver on loopback
        /// (with `.loopbackOnly` addresses); such a transport sends nothing else.
        package var plainHTTP = false
        /// The addresses connected to, checked for each address the name resolved to as it is
        /// connected: a team's webhook endpoint, never the host's network.
        package var addresses = Addresses.any
        /// The longest answer read (a webhook receiver's answer needs only an excerpt).
        package var responseLimit = HTTPSTransport.maximumResponseLength

        package init(certificateAuthorities: [UInt8]?, connectTimeoutMilliseconds: Int, userAgent: String, errors: ErrorCodes) {
            self.certificateAuthorities = certificateAuthorities
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.userAgent = userAgent
            self.errors = errors
        }
    }

    /// Which IP addresses a transport connects to.
    package enum Addresses: Sendable {
        case any
        /// Only public ones (`PublicAddress`).
        case publicOnly
        /// Only loopback ones: plain HTTP to a receiver on this machine, nothing that leaves it.
        case loopbackOnly
    }

    /// No answer (`transport`), and an answer too long to read (`response`).
    package struct ErrorCodes: Sendable {
        package let transport: GateKitError.Code
        package let response: GateKitError.Code

        package static let appStore = ErrorCodes(transport: .EAPPSTORE_TRANSPORT, response: .EAPPSTORE_RESPONSE)
        package static let play = ErrorCodes(transport: .EPLAY_TRANSPORT, response: .EPLAY_RESPONSE)
        package static let stripe = ErrorCodes(transport: .ESTRIPE_TRANSPORT, response: .ESTRIPE_RESPONSE)
        package static let webhookDelivery = ErrorCodes(transport: .EWEBHOOK_DELIVERY, response: .EWEBHOOK_DELIVERY)
    }

    /// Largest answer read: Apple's pages hold at most 20 signed items (a few hundred KB),
    /// Google's at most 1000 voided purchases.
    package static let maximumResponseLength = 16 << 20

    private let curl: UnsafePointer<gk_curl>
    private let settings: Settings
    private let idle = ProcessLocal<[UnsafeMutableRawPointer]> { [] }

    /// The code of a failure to get an answer, the client's own.
    package var transportError: GateKitError.Code { settings.errors.transport }

    package init(_ settings: Settings) throws(GateKitError) {
        curl = try CurlLibrary.functions(settings.errors.transport)
        self.settings = settings
    }

    deinit {
        for handle in idle.ownState ?? [] { curl.pointee.curl_easy_cleanup(handle) }
    }

    /// `timeoutMilliseconds`: this attempt's share of the call's deadline.
    package func send(_ request: HTTPRequest, timeoutMilliseconds: Int) throws(GateKitError) -> HTTPResponse {
        let handle = try checkOut()
        defer { checkIn(handle) }
        let c = curl
        c.pointee.curl_easy_reset(handle)  // keeps the connection cache
        var strings = CStrings()
        defer { strings.free() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { if let headerList { c.pointee.curl_slist_free_all(headerList) } }
        var headers = request.headers
        // A bodiless POST or PUT sends no Content-Type (libcurl would add a form type).
        if request.method != "GET", !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) { headers.append("Content-Type:") }
        for header in headers {
            guard let appended = c.pointee.curl_slist_append(headerList, try strings.make(header)) else {
                throw GateKitError(.ENOMEM, "curl_slist_append failed")
            }
            headerList = appended
        }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let sink = ResponseSink(limit: settings.responseLimit)
        let connections = ConnectionCheck(settings.addresses)
        let context = Unmanaged.passUnretained(sink).toOpaque()

        var set: [CURLcode] = [
            gk_curl_set_pointer(c, handle, CURLOPT_URL, try strings.make(request.url)),
            gk_curl_set_pointer(c, handle, CURLOPT_PROTOCOLS_STR, try strings.make(settings.plainHTTP ? "http" : "https")),
            gk_curl_set_pointer(c, handle, CURLOPT_REDIR_PROTOCOLS_STR, try strings.make(settings.plainHTTP ? "http" : "https")),
            gk_curl_set_long(c, handle, CURLOPT_FOLLOWLOCATION, 0),
            gk_curl_set_long(c, handle, CURLOPT_NOSIGNAL, 1),
            gk_curl_set_long(c, handle, CURLOPT_SSL_VERIFYPEER, 1),
            gk_curl_set_long(c, handle, CURLOPT_SSL_VERIFYHOST, 2),
            gk_curl_set_long(c, handle, CURLOPT_TIMEOUT_MS, max(timeoutMilliseconds, 1)),
            gk_curl_set_long(c, handle, CURLOPT_CONNECTTIMEOUT_MS, min(settings.connectTimeoutMilliseconds, max(timeoutMilliseconds, 1))),
            gk_curl_set_pointer(c, handle, CURLOPT_USERAGENT, try strings.make(settings.userAgent)),
            gk_curl_set_pointer(c, handle, CURLOPT_HTTPHEADER, headerList),
            gk_curl_set_pointer(c, handle, CURLOPT_ERRORBUFFER, errorBuffer),
            gk_curl_set_writer(c, handle, { data, size, count, context in
                guard let context else { return 0 }
                return Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue().append(data, size, count)
            }, context),
        ]
        if settings.addresses != .any {
            set.append(gk_curl_set_opener(c, handle, { context, _, address in
                guard let context, let address else { return CURL_SOCKET_BAD }
                return Unmanaged<ConnectionCheck>.fromOpaque(context).takeUnretainedValue().open(address)
            }, Unmanaged.passUnretained(connections).toOpaque()))
        }
        if let authorities = settings.certificateAuthorities {
            set.append(authorities.withUnsafeBytes { gk_curl_set_blob(c, handle, CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) })
            set.append(gk_curl_set_pointer(c, handle, CURLOPT_CAPATH, nil))  // only these: not the system's folder too
        }
        switch request.method {
        case "GET": set.append(gk_curl_set_long(c, handle, CURLOPT_HTTPGET, 1))
        default:
            set.append(gk_curl_set_pointer(c, handle, CURLOPT_CUSTOMREQUEST, try strings.make(request.method)))
            if let body = request.body ?? (request.method == "DELETE" ? nil : []) {
                let copy = try strings.bytes(body)
                set.append(gk_curl_set_off(c, handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                set.append(gk_curl_set_pointer(c, handle, CURLOPT_POSTFIELDS, copy))
            }
        }
        if let failed = set.first(where: { $0 != CURLE_OK }) {
            throw GateKitError(settings.errors.transport, "libcurl refused an option: \(CurlLibrary.describe(failed, c)) (libcurl 7.85 or newer is needed)")
        }

        let code = c.pointee.curl_easy_perform(handle)
        if sink.overflowed {
            throw GateKitError(settings.errors.response, "the answer is longer than \(settings.responseLimit) bytes")
        }
        if let refused = connections.refused {
            throw GateKitError(settings.errors.transport, "\(request.method) \(HTTPSTransport.origin(of: request.url)): refused to connect to \(refused), not a \(settings.addresses == .loopbackOnly ? "loopback" : "public") address")
        }
        guard code == CURLE_OK else {
            let detail = String(cString: errorBuffer)
            let reason = detail.isEmpty ? CurlLibrary.describe(code, c) : detail
            throw GateKitError(settings.errors.transport, "\(request.method) \(HTTPSTransport.origin(of: request.url)): \(reason) (libcurl error \(code.rawValue))")
        }
        var status = 0
        _ = gk_curl_get_long(c, handle, CURLINFO_RESPONSE_CODE, &status)
        var contentType: UnsafePointer<CChar>?
        _ = gk_curl_get_string(c, handle, CURLINFO_CONTENT_TYPE, &contentType)
        let serverDate = gk_curl_header(c, handle, "Date").flatMap { HTTPHeaderValues.date(String(cString: $0)) }
        let retryAfter = gk_curl_header(c, handle, "Retry-After").flatMap {
            HTTPHeaderValues.retryAfterSeconds(String(cString: $0), serverDate: serverDate)
        }
        let maxAge = gk_curl_header(c, handle, "Cache-Control").flatMap { HTTPHeaderValues.maxAge(String(cString: $0)) }
        return HTTPResponse(status: status, contentType: contentType.map { String(cString: $0) },
                            retryAfter: retryAfter, serverDate: serverDate, maxAge: maxAge, body: sink.bytes)
    }

    /// Scheme, host and port of a URL, for messages (never the path: it may hold ids).
    package static func origin(of url: String) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else { return "the server" }
        let hostStart = colon + 3
        let hostEnd = bytes[hostStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? bytes.count
        return String(decoding: bytes[..<hostEnd], as: UTF8.self)
    }

    private func checkOut() throws(GateKitError) -> UnsafeMutableRawPointer {
        if let reused = idle.withLock({ $0.popLast() }) { return reused }
        guard let fresh = curl.pointee.curl_easy_init() else { throw GateKitError(.ENOMEM, "curl_easy_init failed") }
        return fresh
    }

    private func checkIn(_ handle: UnsafeMutableRawPointer) {
        idle.withLock { $0.append(handle) }
    }
}

/// Opens each socket libcurl asks for, unless its address is not one `allowed`: then none, and
/// the address is kept for the error.
private final class ConnectionCheck {
    let allowed: HTTPSTransport.Addresses
    var refused: String?

    init(_ allowed: HTTPSTransport.Addresses) { self.allowed = allowed }

    func open(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        var raw = [UInt8](repeating: 0, count: 16)
        let length = Int(gk_curl_address_bytes(address, &raw))
        let bytes = Array(raw.prefix(length))
        guard allowed == .loopbackOnly ? PublicAddress.isLoopback(bytes) : PublicAddress.isPublic(bytes) else {
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            let family = length == 4 ? AF_INET : AF_INET6
            refused = length == 0 ? "an address of family \(address.pointee.family)"
                : (inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil
                   ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "an address")
            return CURL_SOCKET_BAD
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }
}

/// Collects an answer's body, refusing more than `limit` bytes.
private final class ResponseSink {
    let limit: Int
    var bytes: [UInt8] = []
    var overflowed = false

    init(limit: Int) { self.limit = limit }

    func append(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int) -> Int {
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow, let data, length <= limit - bytes.count else {
            overflowed = true
            return 0  // libcurl aborts the transfer
        }
        bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
        return length
    }
}

/// C strings and byte copies that libcurl reads during one transfer, freed after it.
private struct CStrings {
    private var owned: [UnsafeMutableRawPointer] = []

    mutating func make(_ s: String) throws(GateKitError) -> UnsafeMutablePointer<CChar> {
        guard !s.utf8.contains(0) else { throw .invalid("a request text contains a NUL byte") }
        guard let p = strdup(s) else { throw GateKitError(.ENOMEM, "strdup failed") }
        owned.append(p)
        return p
    }

    mutating func bytes(_ b: [UInt8]) throws(GateKitError) -> UnsafeMutableRawPointer {
        guard let p = malloc(max(b.count, 1)) else { throw GateKitError(.ENOMEM, "malloc failed") }
        owned.append(p)
        b.withUnsafeBytes { if let base = $0.baseAddress { memcpy(p, base, b.count) } }
        return p
    }

    func free() { for p in owned { Glibc.free(p) } }
}
