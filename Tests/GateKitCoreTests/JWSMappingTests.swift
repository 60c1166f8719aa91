import Testing
@testable import GateKitJWS
@testable import GateKitLedger
@testable import GateKitSupport

/// Signed JSON to the ledger's versions, for every member the ledger reads (issue 32): a
/// member the mapping ignores or misreads changes answers no model test would see.
@Suite struct JWSMappingTests {
    static func transaction(_ members: String) throws -> TransactionVersion? {
        let json = try JSONParser.parse(Array(("{\"transactionId\":\"11\",\"originalTransactionId\":\"10\",\"productId\":\"pro\","
                                               + "\"signedDate\":1700000000000" + members + "}").utf8))
        return TransactionVersion(try JWSTransaction(json: json), identity: "x")
    }

    @Test func everyTransactionMemberTheLedgerReads() throws {
        let full = try #require(try Self.transaction("""
            ,"appAccountToken":"7E3FB20B-4CDB-47CC-936D-99D65F608138","subscriptionGroupIdentifier":"21000001",
            "type":"Auto-Renewable Subscription","inAppOwnershipType":"FAMILY_SHARED","purchaseDate":1699000000000,
            "originalPurchaseDate":1698000000000,"expiresDate":1701000000000,"revocationDate":1699500000000,
            "revocationReason":1,"isUpgraded":true,"offerType":2
            """))
        #expect(full.transactionID == "11" && full.purchaseID == "10" && full.productID == "pro")
        #expect(full.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(full.groupID == "21000001" && full.productType == .autoRenewable && full.familyShared)
        #expect(full.purchaseMs == 1_699_000_000_000 && full.originalPurchaseMs == 1_698_000_000_000)
        #expect(full.expiresMs == 1_701_000_000_000)
        #expect(full.revocationMs == 1_699_500_000_000 && full.revocationReason == .appIssue)
        #expect(full.isUpgraded && full.offer == .promotional && full.vouchedMs == 1_700_000_000_000)
        // A revocation reason without a date: revoked from the signing date.
        let reasonOnly = try #require(try Self.transaction(",\"revocationReason\":0"))
        #expect(reasonOnly.revocationMs == 1_700_000_000_000)
        let plain = try #require(try Self.transaction(",\"type\":\"Non-Consumable\",\"inAppOwnershipType\":\"PURCHASED\""))
        #expect(plain.productType == .nonConsumable && !plain.familyShared && plain.revocationMs == nil && !plain.isUpgraded)
        #expect(plain.appAccountToken == nil && plain.groupID == nil)
        #expect(try Self.transaction(",\"type\":\"Consumable\"")?.productType == .consumable)
        #expect(try Self.transaction(",\"type\":\"Non-Renewing Subscription\"")?.productType == .nonRenewing)
    }

    @Test func everyRenewalMemberTheLedgerReads() throws {
        let json = try JSONParser.parse(Array("""
            {"originalTransactionId":"10","productId":"pro","autoRenewProductId":"pro.yearly","autoRenewStatus":0,
             "isInBillingRetryPeriod":true,"gracePeriodExpiresDate":1701500000000,"expirationIntent":2,
             "renewalDate":1701000000000,"signedDate":1700000000001}
            """.utf8))
        let r = try #require(RenewalVersion(try JWSRenewalInfo(json: json), identity: "y"))
        #expect(r.purchaseID == "10" && r.productID == "pro" && r.autoRenewProductID == "pro.yearly")
        #expect(r.willAutoRenew == false && r.isInBillingRetryPeriod && r.gracePeriodExpiresMs == 1_701_500_000_000)
        #expect(r.expirationCause == .billingError && r.renewalMs == 1_701_000_000_000 && r.vouchedMs == 1_700_000_000_001)
    }
}
