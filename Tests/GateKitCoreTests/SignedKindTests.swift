import Glibc
import Testing
@testable import GateKitJWS
@testable import GateKitSupport

/// Which kind a signed payload is, and the strings it may hold (Hardening III, issue 32).
@Suite struct SignedKindTests {
    @Test func aPayloadIsAMemberOfTheKindItsMembersSay() throws {
        let renewal = try JSONParser.parse(Array(#"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1}"#.utf8))
        #expect(failure { try SignedKind.requireRenewalInfo(renewal, path: "r") } == nil)
        for other in [#"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1,"requestIdentifier":"x"}"#,
                      #"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1,"userLocale":"en_US"}"#,
                      #"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1,"transactionId":"2"}"#,
                      #"{"originalTransactionId":"1","signedDate":1}"#] {
            #expect(failure { try SignedKind.requireRenewalInfo(try JSONParser.parse(Array(other.utf8)), path: "r") } == .EJWS_PAYLOAD_FIELD, "\(other)")
        }
    }

    @Test func signedStringsHoldNoNULAndNoMemberTwice() throws {
        let nul = try JSONParser.parse(Array(#"{"transactionId":"1\u0000evil","productId":"p"}"#.utf8))
        #expect(failure { try JWSTransaction(json: nul) } == .EJWS_PAYLOAD_FIELD)
        let list = try JSONParser.parse(Array(#"{"eligibleWinBackOfferIds":["a","b\u0000"]}"#.utf8))
        #expect(failure { try JWSRenewalInfo(json: list) } == .EJWS_PAYLOAD_FIELD)
        let twice = try JSONParser.parse(Array(#"{"productId":"a","productId":"b"}"#.utf8), allowingRepeatedNames: true)
        #expect(failure { try JWSTransaction(json: twice) } == .EJWS_PAYLOAD_FIELD)
    }

    /// The second hour (issue 44): data of the wrong kind is named as such, before any check
    /// that would blame another app or environment; a JSON wrapper is named as one.
    @Test func theWrongKindIsNamedBeforeAnythingElse() throws {
        func kind(_ text: String) throws -> JWSVerifier.Kind? { SignedKind.recognised(try JSONParser.parse(Array(text.utf8))) }
        #expect(try kind(#"{"notificationType":"TEST","notificationUUID":"u","data":{}}"#) == .notification)
        #expect(try kind(#"{"transactionId":"1","purchaseDate":1,"productId":"p"}"#) == .transaction)
        #expect(try kind(#"{"originalTransactionId":"1","autoRenewStatus":1,"signedDate":1}"#) == .renewalInfo)
        #expect(try kind(#"{"receiptType":"Sandbox","originalApplicationVersion":"1","bundleId":"b"}"#) == .appTransaction)
        #expect(try kind(#"{"requestIdentifier":"r","userLocale":"en_US","originalTransactionId":"1"}"#) == .realtimeRequest)
        #expect(try kind(#"{"productId":"p"}"#) == nil)   // shows no kind: the typed decoding says what is wrong
        guard let pki = JWSTestPKI.shared, let options = JWSOptions.test(pki.der("root"), at: nowSeconds()) else {
            Issue.record("the test PKI could not be made (openssl)")
            return
        }
        let notification = pki.sign(#"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":{"environment":"Sandbox"}}"#,
                                    chain: JWSGeneratedTests.chain)
        do {
            _ = try JWSVerifier.verifyTransaction(Array(notification.utf8), options: options)
            Issue.record("a notification passed as a transaction")
        } catch {
            #expect(error.code == .EJWS_PAYLOAD_FIELD && error.message.hasPrefix("this is a notification (notification), not a transaction"), "\(error.message)")
        }
        let transaction = pki.sign(JWSGeneratedTests.transactionPayload(), chain: JWSGeneratedTests.chain)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyRenewalInfo(Array(transaction.utf8), options: options) } == .EJWS_PAYLOAD_FIELD)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyNotification(Array(transaction.utf8), options: options) } == .EJWS_PAYLOAD_FIELD)
        #expect(jwsError { () throws(GateKitError) in try JWSVerifier.verifyTransaction(Array(transaction.utf8), options: options) } == nil)
        // Apple's POST body passed whole: named, with the member to pass.
        do {
            _ = try JWSVerifier.verifyNotification(Array("{\"signedPayload\":\"\(notification)\"}".utf8), options: options)
            Issue.record("a POST body passed as signed data")
        } catch {
            #expect(error.code == .EJWS_MALFORMED && error.message.contains("its \"signedPayload\" member"), "\(error.message)")
        }
        do {
            _ = try CompactJWS.parse(Array(#" {"a":1}"#.utf8))
            Issue.record("JSON passed as a JWS")
        } catch {
            #expect(error.message.hasPrefix("this is a JSON document, not signed data"), "\(error.message)")
        }
    }
}
