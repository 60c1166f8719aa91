/// What the App Store Server API client reads from a server and from its caller: any bytes as
/// an error body (Apple's errorCode / errorMessage), as a success answer whose signed members
/// are verified (with the JWS fuzz anchor), as a TransactionHistoryRequest turned into query
/// parameters, and as a path argument — fail with a GateKitError, never trap; a percent-encoded
/// argument holds nothing but unreserved characters and escapes.
@Sendable func fuzzAPIAnswer(_ bytes: UnsafeRawBufferPointer) {
    defer { JWSHeaderMemo.shared.removeAll() }
    let body = Array(bytes)
    let failure = APIFailure(HTTPResponse(status: 429, contentType: "application/json", retryAfter: 3, body: body))
    _ = failure.json
    _ = failure.description
    if let options = JWSFuzzOptions.sandbox, let document = try? JSONParser.parse(body) {
        _ = try? SignedMembers.verified(document, options: options)
    }
    _ = try? APIEndpoint.getTransactionHistory(transactionID: "1", revision: nil, request: body, version: 2)
    _ = try? APIEndpoint.getNotificationHistory(paginationToken: nil, request: body)
    let argument = String(decoding: body, as: UTF8.self)
    let encoded = PercentEncoding.encode(argument)
    let unreserved: (UInt8) -> Bool = { b in
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x25
    }
    guard encoded.utf8.allSatisfy(unreserved) else { fuzzFail("percent-encoding left a reserved byte in \(encoded.prefix(80))") }
    guard encoded != ".", encoded != ".." else { fuzzFail("percent-encoding left a dot segment") }
    _ = try? APIEndpoint.getTransactionInfo(transactionID: argument)
    _ = try? APIEndpoint.uploadImage(identifier: argument, image: body, imageSize: nil)
}
