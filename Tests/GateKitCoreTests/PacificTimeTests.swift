import Testing
@testable import GateKitReceipts
@testable import GateKitSupport

@Suite struct PacificTimeTests {
    func local(_ utc: String) -> String {
        guard let ms = Timestamp.parseRFC3339(utc.utf8) else { return "unparseable" }
        return Timestamp.spaced(ms + PacificTime.offset(at: ms))
    }

    @Test func transitionsFollowTheUSRules() {
        // 2007+: second Sunday of March 02:00 PST, first Sunday of November 02:00 PDT.
        #expect(local("2020-03-08T09:59:59Z") == "2020-03-08 01:59:59")
        #expect(local("2020-03-08T10:00:00Z") == "2020-03-08 03:00:00")
        #expect(local("2020-11-01T08:59:59Z") == "2020-11-01 01:59:59")
        #expect(local("2020-11-01T09:00:00Z") == "2020-11-01 01:00:00")
        // 1987–2006: first Sunday of April, last Sunday of October.
        #expect(local("2006-04-02T09:59:59Z") == "2006-04-02 01:59:59")
        #expect(local("2006-04-02T10:00:00Z") == "2006-04-02 03:00:00")
        #expect(local("2006-10-29T09:00:00Z") == "2006-10-29 01:00:00")
        // 1974 energy-crisis year: DST from January 6.
        #expect(local("1974-01-06T10:00:00Z") == "1974-01-06 03:00:00")
        // Xcode's 4001 sentinel stays computable.
        #expect(local("4001-01-01T00:00:00Z") == "4000-12-31 16:00:00")
    }
}
