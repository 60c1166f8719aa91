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
            #expect(failure { try SignedKind.requireRenewalInfo(try JSONParser.parse(Array(other.utf8)), path: "r") } == .jwsPayloadField, "\(other)")
        }
    }

    @Test func signedStringsHoldNoNULAndNoMemberTwice() throws {
        let nul = try JSONParser.parse(Array(#"{"transactionId":"1\u0000evil","productId":"p"}"#.utf8))
        #expect(failure { try JWSTransaction(json: nul) } == .jwsPayloadField)
        let list = try JSONParser.parse(Array(#"{"eligibleWinBackOfferIds":["a","b\u0000"]}"#.utf8))
        #expect(failure { try JWSRenewalInfo(json: list) } == .jwsPayloadField)
        let twice = try JSONParser.parse(Array(#"{"productId":"a","productId":"b"}"#.utf8), allowingRepeatedNames: true)
        #expect(failure { try JWSTransaction(json: twice) } == .jwsPayloadField)
    }
}
