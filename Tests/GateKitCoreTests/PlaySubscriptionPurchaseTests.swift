import Testing
@testable import GateKitPlayAPI
@testable import GateKitPlayData
import GateKitSupport

/// A SubscriptionPurchaseV2 read into what an entitlement decides on: Google's members as the
/// discovery document types them (int64 as strings, RFC 3339 with up to nine fractional
/// digits), every state and cancellation cause, money exact, and wrong types refused.
@Suite struct PlaySubscriptionPurchaseTests {
    static let canceled = #"""
    {"kind":"androidpublisher#subscriptionPurchaseV2","regionCode":"DE","startTime":"2026-01-01T00:00:00.123456789Z",
     "subscriptionState":"SUBSCRIPTION_STATE_CANCELED","latestOrderId":"GPA.1..2","linkedPurchaseToken":"old-token",
     "canceledStateContext":{"userInitiatedCancellation":{"cancelSurveyResult":{"reason":"CANCEL_SURVEY_REASON_OTHERS"},"cancelTime":"2026-01-10T12:00:00Z"}},
     "acknowledgementState":"ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED","externalAccountIdentifiers":{"obfuscatedExternalAccountId":"acct-1"},
     "lineItems":[{"productId":"pro.monthly","expiryTime":"2026-01-31T00:00:00.5Z",
       "autoRenewingPlan":{"autoRenewEnabled":false,"recurringPrice":{"currencyCode":"EUR","units":"12","nanos":990000000}},
       "offerDetails":{"basePlanId":"monthly","offerId":"intro","offerTags":["a"]},"offerPhase":{"introductoryPrice":{}},
       "latestSuccessfulOrderId":"GPA.1..2","somethingNewer":1}],"somethingElse":{"x":1}}
    """#

    /// An answer's text with the resource's kind, as Google sends it.
    static func answer(_ members: String) -> [UInt8] {
        guard members.hasPrefix("{") else { return Array(members.utf8) }
        return Array((#"{"kind":"androidpublisher#subscriptionPurchaseV2","# + members.dropFirst()).utf8)
    }

    @Test func aCanceledSubscriptionIsReadWhole() throws {
        let s = try SubscriptionPurchase(json: Array(Self.canceled.utf8))
        #expect(s.state == .canceled && s.startMs == 1_767_225_600_123 && s.linkedPurchaseToken == "old-token")
        #expect(s.cancellation == .user(cancelMs: 1_768_046_400_000) && s.acknowledged == true && !s.isTest)
        #expect(s.obfuscatedAccountID == "acct-1" && s.regionCode == "DE")
        let item = try #require(s.lineItems.first)
        #expect(item.productID == "pro.monthly" && item.expiryMs == 1_769_817_600_500 && item.autoRenewEnabled == false && !item.prepaid)
        #expect(item.basePlanID == "monthly" && item.offerID == "intro" && item.phase == .introductoryPrice)
        #expect(item.recurringPrice == .init(currency: "EUR", units: 12, nanos: 990_000_000) && item.recurringPrice?.milliunits == 12_990)
    }

    @Test func everyStateAndCause() throws {
        let states: [(String, SubscriptionPurchase.State)] = [
            ("SUBSCRIPTION_STATE_PENDING", .pending), ("SUBSCRIPTION_STATE_ACTIVE", .active), ("SUBSCRIPTION_STATE_PAUSED", .paused),
            ("SUBSCRIPTION_STATE_IN_GRACE_PERIOD", .inGracePeriod), ("SUBSCRIPTION_STATE_ON_HOLD", .onHold),
            ("SUBSCRIPTION_STATE_CANCELED", .canceled), ("SUBSCRIPTION_STATE_EXPIRED", .expired),
            ("SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED", .pendingPurchaseCanceled),
            ("SUBSCRIPTION_STATE_SOMETHING_NEW", .other("SUBSCRIPTION_STATE_SOMETHING_NEW")),
        ]
        for (name, state) in states {
            #expect(try SubscriptionPurchase(json: Self.answer(#"{"subscriptionState":"\#(name)","lineItems":[]}"#)).state == state)
        }
        for (member, cause) in [("systemInitiatedCancellation", SubscriptionPurchase.Cancellation.system), ("developerInitiatedCancellation", .developer),
                                ("replacementCancellation", .replacement)] {
            let text = #"{"subscriptionState":"SUBSCRIPTION_STATE_EXPIRED","canceledStateContext":{"\#(member)":{}},"testPurchase":{}}"#
            let s = try SubscriptionPurchase(json: Self.answer(text))
            #expect(s.cancellation == cause && s.isTest)
        }
        let paused = try SubscriptionPurchase(json: Self.answer(#"{"subscriptionState":"SUBSCRIPTION_STATE_PAUSED","pausedStateContext":{"autoResumeTime":"2026-03-01T00:00:00Z"},"lineItems":[{"productId":"p","prepaidPlan":{}}]}"#))
        #expect(paused.pausedUntilMs == 1_772_323_200_000 && paused.lineItems.first?.prepaid == true && paused.lineItems.first?.autoRenewEnabled == nil)
    }

    /// Google's enumerations are open (M2): a cancellation cause GateKit does not know, or none,
    /// is read as unknown, never a refusal that would keep the token out of the ledger for good.
    @Test func aCancellationCauseGateKitDoesNotKnowIsUnknown() throws {
        for context in [#"{}"#, #"{"aCauseGoogleAddsLater":{"x":1}}"#] {
            let purchase = try SubscriptionPurchase(json: Self.answer(#"{"subscriptionState":"SUBSCRIPTION_STATE_CANCELED","canceledStateContext":\#(context)}"#))
            #expect(purchase.cancellation == .unknown && purchase.state == .canceled, "\(context)")
        }
    }

    @Test func wrongTypesAreRefusedNamingTheMember() {
        let cases = [
            #"{"subscriptionState":4}"#: "subscriptionState",
            #"{"startTime":"2026-01-01T00:00:00+01:00"}"#: "startTime",
            #"{"lineItems":{}}"#: "lineItems",
            #"{"lineItems":[{"expiryTime":"2026-01-01T00:00:00Z"}]}"#: "productId",
            #"{"lineItems":[{"productId":"p","autoRenewingPlan":{"autoRenewEnabled":"true"}}]}"#: "autoRenewEnabled",
            #"{"lineItems":[{"productId":"p","autoRenewingPlan":{"recurringPrice":{"currencyCode":"USD","units":"1","nanos":-5}}}]}"#: "recurringPrice",
            #"{"canceledStateContext":[]}"#: "canceledStateContext",
            #"[]"#: "JSON object",
        ]
        for (text, named) in cases {
            do {
                _ = try SubscriptionPurchase(json: Self.answer(text))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == .EPLAY_RESPONSE && error.message.contains(named), "\(text): \(error.message)")
            }
        }
        // A device's purchase JSON (the Billing Library's originalJson) or another resource is
        // never read as the API's answer.
        let foreign = [#"{"orderId":"GPA.1","packageName":"com.example","productId":"p","purchaseTime":1,"purchaseState":0,"purchaseToken":"t"}"#,
                       #"{"kind":"androidpublisher#productPurchaseV2","lineItems":[]}"#, #"{"kind":5}"#]
        for text in foreign {
            do {
                _ = try SubscriptionPurchase(json: Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == .EPLAY_RESPONSE && error.message.contains("kind"), "\(text): \(error.message)")
            }
        }
    }

    @Test func googlesTimestampsAreReadExactlyOrNotAtAll() {
        #expect(PlayTime.milliseconds("1970-01-01T00:00:00Z") == 0)
        #expect(PlayTime.milliseconds("2026-11-28T12:34:56.789Z") == 1_795_869_296_789)
        #expect(PlayTime.milliseconds("2026-11-28T12:34:56.7899999Z") == 1_795_869_296_789, "digits past the millisecond are dropped")
        #expect(PlayTime.milliseconds("2024-02-29T00:00:00Z") != nil)
        for bad in ["2026-02-29T00:00:00Z", "2026-11-28T24:00:00Z", "2026-11-28 12:34:56Z", "2026-11-28T12:34:56", "2026-11-28T12:34:56.Z",
                    "2026-11-28T12:34:56.1234567890Z", "2026-11-28T12:34:56+00:00", "2026-11-28t12:34:56Z", "2026-11-28T12:34:56z",
                    "2026-12-31T23:59:60Z", ""] {
            #expect(PlayTime.milliseconds(bad) == nil, "\(bad)")
        }
        #expect(SubscriptionPurchase.Money(currency: "USD", units: 1, nanos: 990_000_001).milliunits == nil, "not exact in milliunits")
        #expect(SubscriptionPurchase.Money(currency: "USD", units: -1, nanos: -500_000_000).milliunits == -1500)
    }
}
