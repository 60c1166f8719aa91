import Testing
@testable import GateKitPlayAPI
@testable import GateKitPlayData
@testable import GateKitReceipts
@testable import GateKitSupport

/// One definition per number: the core's enums are the source, the headers repeat the
/// numbers for C hosts, and these tests fail when a copy drifts.
@Suite struct HeaderAgreementTests {
    /// Every `#define GATEKIT_NAME value` of the header with an integer value (name without GATEKIT_).
    static let defines: [String: Int64] = {
        let headers = ["gatekit.h"] + ["common", "errors", "store", "eula", "receipt", "perm", "jws", "ledger", "appstore_sign",
                                        "appstore_api", "play"].map { "gatekit/\($0).h" }
        var text = ""
        for header in headers {
            guard let bytes = Files.read(JWSTestFiles.repoRoot + "/include/" + header) else { return [:] }
            text += String(decoding: bytes, as: UTF8.self) + "\n"
        }
        var found: [String: Int64] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 3, words[0] == "#define", words[1].hasPrefix("GATEKIT_") else { continue }
            var value = String(words[2]).replacingOccurrences("(", "").replacingOccurrences(")", "")
            if value.hasSuffix("u") { value.removeLast() }
            let number = value.hasPrefix("0x") ? Int64(value.dropFirst(2), radix: 16) : Int64(value)
            if let number { found[String(words[1].dropFirst("GATEKIT_".count))] = number }
        }
        return found
    }()

    /// `appItemID` -> `APP_ITEM_ID`.
    static func macroName(_ camel: String) -> String {
        var out = ""
        var previous: Character?
        for c in camel {
            if c.isUppercase, let p = previous, p.isLowercase || p.isNumber { out += "_" }
            out += c.uppercased()
            previous = c
        }
        return out
    }

    @Test func receiptAttributeNumbers() {
        #expect(Self.defines.count > 100)
        // Where the header's name is shorter than the Swift one.
        let renamed = ["opaqueValue": "OPAQUE", "sha1Hash": "HASH", "versionExternalIdentifier": "VERSION_EXTERNAL_ID"]
        for a in ReceiptAttribute.allCases where a != .inAppPurchase {
            let name = "RECEIPT_" + (renamed["\(a)"] ?? Self.macroName("\(a)"))
            #expect(Self.defines[name] == a.rawValue, "\(name)")
        }
        for f in PurchaseField.allCases {
            let name = "IAP_" + Self.macroName("\(f)")
            #expect(Self.defines[name] == f.rawValue, "\(name)")
        }
        let headerIDs = Set(Self.defines.filter { $0.key.hasPrefix("IAP_") }.values)
        #expect(headerIDs == Set(PurchaseField.allCases.map(\.rawValue)))
    }

    /// Google's RTDN numbers: the names the core reports (`PlayNames`) are the header's, which
    /// Python's enumerations are generated from.
    @Test func playNotificationTypes() {
        func named(_ prefix: String) -> [Int64: String] {
            Dictionary(uniqueKeysWithValues: Self.defines.filter { $0.key.hasPrefix(prefix) }.map { ($0.value, String($0.key.dropFirst("PLAY_".count))) })
        }
        #expect(named("PLAY_SUBSCRIPTION_") == PlayNames.subscriptionNotification)
        #expect(named("PLAY_ONE_TIME_PRODUCT_") == PlayNames.oneTimeProductNotification)
        #expect(Self.defines["PLAY_SUBSCRIPTION_REVOKED"] == PlayNames.subscriptionRevoked)
    }

    @Test func version() {
        #expect(Self.defines["VERSION_MAJOR"] == Int64(GateKitVersion.major))
        #expect(Self.defines["VERSION_MINOR"] == Int64(GateKitVersion.minor))
        #expect(Self.defines["VERSION_PATCH"] == Int64(GateKitVersion.patch))
        #expect(GateKitVersion.text == "\(GateKitVersion.major).\(GateKitVersion.minor).\(GateKitVersion.patch)")
    }
}
