import Testing
@testable import GateKitSupport

/// The one helper that puts input values into error messages.
@Suite struct QuotedTests {
    @Test func escapesWhatCouldForgeALogLine() {
        #expect(Quoted.text("com.example.app") == "\"com.example.app\"")
        #expect(Quoted.text("a\nb\r\t\"\\") == "\"a\\nb\\r\\t\\\"\\\\\"")
        #expect(Quoted.text("\u{1B}[31mred") == "\"\\u{1B}[31mred\"")
        #expect(Quoted.text("\u{202E}gnp.exe") == "\"\\u{202E}gnp.exe\"")   // right-to-left override
        #expect(Quoted.text("caf\u{E9} \u{1F600}") == "\"caf\u{E9} \u{1F600}\"")  // printable Unicode stays
        #expect(Quoted.text(nil) == "absent")
    }

    @Test func aValueCutAtNULNeverReadsLikeTheExpectedOne() {
        let hidden = "com.example.app\u{0}evil"
        #expect(Quoted.text(hidden) == "\"com.example.app\\0evil\"")
        #expect(Quoted.text(hidden) != Quoted.text("com.example.app"))
    }

    @Test func invalidUTF8IsShownByteByByte() {
        #expect(Quoted.bytes([0x61, 0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0x62]) == "\"a\\xff\\xc3(\\xed\\xa0\\x80b\"")
        #expect(Quoted.bytes([0xC0, 0x80]) == "\"\\xc0\\x80\"")   // overlong NUL
    }

    @Test func boundedWhateverTheInput() {
        let huge = [UInt8](repeating: 0x41, count: 10_000_000)
        let q = Quoted.bytes(huge)
        #expect(q == "\"" + String(repeating: "A", count: Quoted.limit) + "\"…(10000000 bytes)")
        let controls = [UInt8](repeating: 0x1B, count: 1_000_000)
        #expect(Quoted.bytes(controls).utf8.count < 64 * 8 + 32)
        #expect(Quoted.path("/" + String(repeating: "d/", count: 100)).count > 200)  // paths keep their length
    }
}
