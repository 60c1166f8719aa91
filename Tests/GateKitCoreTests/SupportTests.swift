import Glibc
import Synchronization
import Testing
@testable import GateKitSupport

@Suite struct Base64Tests {
    @Test func roundTripsEveryLength() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            for alphabet in [Base64.Alphabet.standard, .url] {
                let text = Base64.encode(bytes, alphabet: alphabet)
                #expect(Base64.decode(Array(text.utf8), alphabet: alphabet) == bytes)
            }
        }
    }

    @Test func rfc4648Vectors() {
        let vectors = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(Array(encoded.utf8), alphabet: .standard) == Array(plain.utf8))
        }
    }

    @Test func rejectsWhatIsNotBase64() {
        #expect(Base64.decode(Array("Zg=".utf8), alphabet: .standard) == nil)       // short padding
        #expect(Base64.decode(Array("Zh==".utf8), alphabet: .standard) == nil)      // non-zero unused bits
        #expect(Base64.decode(Array("Zg==Zg==".utf8), alphabet: .standard) == nil)  // data after padding
        #expect(Base64.decode(Array("Z".utf8), alphabet: .standard) == nil)
        #expect(Base64.decode(Array("Zg==".utf8), alphabet: .url) == nil)           // url: no padding
        #expect(Base64.decode(Array("a+b/".utf8), alphabet: .url) == nil)
        #expect(Base64.decode(Array("a-b_".utf8), alphabet: .standard) == nil)
        #expect(Base64.decode(Array("Zm9v\r\nYmFy".utf8), alphabet: .standard) == Array("foobar".utf8))
    }

    /// Whole quanta decoded four characters at a time decide as the careful loop alone does:
    /// encodings of bytes of every length to 100, whole and with one character at each place
    /// replaced by padding, white space, another alphabet's character or a byte outside any,
    /// cut short, or with padding where data goes. Valid text decodes to the bytes encoded.
    @Test func wholeQuantaDecideAsTheCarefulLoopDoes() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed }
        let edits: [UInt8] = [UInt8(ascii: "="), UInt8(ascii: " "), 0x0A, UInt8(ascii: "+"), UInt8(ascii: "-"),
                              UInt8(ascii: "_"), UInt8(ascii: "/"), 0x00, 0x80, 0xFF, UInt8(ascii: "*")]
        var compared = 0
        for n in 0...100 {
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) }
            for alphabet in [Base64.Alphabet.standard, .url] {
                let text = Array(Base64.encode(bytes, alphabet: alphabet).utf8)
                var variants = [text, Array(text.dropLast()), text + Array("==".utf8), Array("AAAA".utf8) + text]
                if !text.isEmpty {
                    for _ in 0..<6 {
                        var edited = text
                        edited[Int(next() % UInt64(text.count))] = edits[Int(next() % UInt64(edits.count))]
                        variants.append(edited)
                    }
                }
                for variant in variants {
                    let fast = variant.withUnsafeBufferPointer { Base64.decode($0, alphabet: alphabet, quantaFirst: true) }
                    let careful = variant.withUnsafeBufferPointer { Base64.decode($0, alphabet: alphabet, quantaFirst: false) }
                    #expect(fast == careful, "\(alphabet) \(String(decoding: variant, as: UTF8.self))")
                    compared += 1
                }
                #expect(Base64.decode(text, alphabet: alphabet) == bytes)
            }
        }
        #expect(compared == 2 * (4 + 100 * 10))
    }
}

/// Text searched by its bytes (`Text`, for the library built without the regex modules) finds
/// what the standard library's search and split find, over every needle and separator cut from
/// a few texts (the tests may use the standard library's: they are not the library).
@Suite struct TextTests {
    @Test func containsAndPiecesAgreeWithTheStandardLibrary() {
        let texts = ["", "a", "..", "a..b...c", "unsupported startup parameter: options", "éa\u{301}é", "x, y, , z, ", ", , "]
        for text in texts {
            let units = Array(text)
            var needles: Set<String> = ["", "..", ", ", "zz", "é", "options", text + "!"]
            for i in 0..<units.count { for j in i..<min(units.count, i + 4) { needles.insert(String(units[i...j])) } }
            for needle in needles {
                #expect(Text.contains(text, needle) == (needle.isEmpty || text.utf8.count >= needle.utf8.count && text.contains(needle)),
                        "\(text) contains \(needle)")
                guard !needle.isEmpty else { continue }
                #expect(Text.pieces(text, separatedBy: needle).map(String.init) == text.split(separator: needle, omittingEmptySubsequences: false).map(String.init),
                        "\(text) split by \(needle)")
            }
        }
    }
}

@Suite struct TimestampTests {
    @Test func parsesAppleForms() {
        #expect(Timestamp.parseRFC3339(Array("1970-01-01T00:00:00Z".utf8)) == 0)
        #expect(Timestamp.parseRFC3339(Array("2020-07-14T19:36:40Z".utf8)) == 1_594_755_400_000)
        #expect(Timestamp.parseRFC3339(Array("2020-07-22T18:33:15+0100".utf8)) == 1_595_439_195_000)
        #expect(Timestamp.parseRFC3339(Array("2020-07-22T18:33:15+01:00".utf8)) == 1_595_439_195_000)
        #expect(Timestamp.parseRFC3339(Array("2020-07-22T12:33:15-05:00".utf8)) == 1_595_439_195_000)
        #expect(Timestamp.parseRFC3339(Array("2020-07-14T19:36:40.5Z".utf8)) == 1_594_755_400_500)
        #expect(Timestamp.parseRFC3339(Array("4001-01-01T00:00:00Z".utf8)) == 64_092_211_200_000)
    }

    @Test func rejectsMalformedDates() {
        for bad in ["", "2020-07-14", "2020-07-14T19:36:40", "2020-13-01T00:00:00Z", "2021-02-29T00:00:00Z",
                    "2020-07-14T24:00:00Z", "2020-07-14T19:36:40+2500", "2020-07-14T19:36:40Zjunk", "20x0-07-14T19:36:40Z"] {
            #expect(Timestamp.parseRFC3339(Array(bad.utf8)) == nil, "accepted \(bad)")
        }
        #expect(Timestamp.parseRFC3339(Array("2020-02-29T00:00:00Z".utf8)) != nil)
    }

    @Test func formatsAndRoundTrips() {
        #expect(Timestamp.rfc3339Milliseconds(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339Milliseconds(1_594_755_400_123) == "2020-07-14T19:36:40.123Z")
        #expect(Timestamp.rfc3339Milliseconds(-1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.spaced(1_594_755_400_000) == "2020-07-14 19:36:40")
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let d = Timestamp.civilDate(days: days)
            #expect(Timestamp.days(year: d.year, month: d.month, day: d.day) == days)
        }
        #expect(Timestamp.weekday(days: 0) == 4)  // 1970-01-01 was a Thursday
    }
}

@Suite struct JSONTests {
    @Test func parsesAndKeepsNumbersExactly() throws {
        let v = try JSONParser.parse(Array(#"{"a":1697679936049.7297,"b":[true,false,null],"c":"x\u00e9\ud83d\ude00","id":123456789012345678901}"#.utf8))
        #expect(v["a"] == .number("1697679936049.7297"))
        #expect(v["a"]?.int64Value == 1_697_679_936_049)
        #expect(v["b"] == .array([.bool(true), .bool(false), .null]))
        #expect(v["c"]?.stringValue == "xé😀")
        #expect(v["id"] == .number("123456789012345678901"))
        #expect(JSONWriter.serialize(v) == #"{"a":1697679936049.7297,"b":[true,false,null],"c":"xé😀","id":123456789012345678901}"#)
    }

    @Test func rejectsMalformedAndHostileInput() {
        let bad = [#"{"a":1,}"#, "[1 2]", #"{"a" 1}"#, "01", "1.", "-", #""\x""#, #""\ud800""#, "[", "{} x", "\u{1}",
                   #""a\u0000"#, "tru", "[" + String(repeating: "[", count: 100) + String(repeating: "]", count: 101)]
        for text in bad {
            #expect(throws: GateKitError.self, "accepted \(text)") { try JSONParser.parse(Array(text.utf8)) }
        }
        #expect(throws: GateKitError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }  // invalid UTF-8
    }

    /// ASCII text is taken as UTF-8 eight bytes at a time; a byte that is not ASCII anywhere —
    /// in a whole word or in the tail — sends the text through the full check: é is read, a
    /// lone 0xFF or a cut é refused.
    @Test func everyByteIsCheckedAsUTF8WhereverItFalls() throws {
        for at in 1...17 {
            var text = [UInt8](repeating: UInt8(ascii: "a"), count: 19)
            text[0] = UInt8(ascii: "\"")
            text[18] = UInt8(ascii: "\"")
            var bad = text
            bad[at] = 0xFF
            #expect(throws: GateKitError.self, "0xFF at \(at)") { try JSONParser.parse(bad) }
            var cut = text
            cut[at] = 0xC3
            #expect(throws: GateKitError.self, "a cut é at \(at)") { try JSONParser.parse(cut) }
            guard at < 17 else { continue }
            var accented = text
            accented[at] = 0xC3
            accented[at + 1] = 0xA9
            #expect(try JSONParser.parse(accented).stringValue?.contains("é") == true, "é at \(at)")
        }
    }

    /// Hardening IV, 13: a member named twice in any object is refused (one reader keeps the
    /// first, another the last), names compared as bytes; small objects by a scan, large by a set.
    @Test func aMemberNamedTwiceIsRefusedAnywhere() throws {
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        // Every earlier name, by scan and by set (the set takes over at the sixteenth), and a name
        // spelt with an escape, which is the same bytes once read.
        let everyName = (0..<40).map { "{" + many + ",\"k\($0)\":0}" }
        for twice in [#"{"a":1,"a":2}"#, #"{"x":{"a":1,"b":{"c":1,"c":1}}}"#, #"[{"a":1},{"b":1,"b":1}]"#,
                      "{\"k0\":0," + many + "}", #"{"ab":1,"a\u0062":2}"#, #"{"a\u0062":1,"ab":2}"#] + everyName {
            #expect(throws: GateKitError.self, "accepted \(twice)") { try JSONParser.parse(Array(twice.utf8)) }
        }
        // Canonically equal, different bytes: two names (as the store compares).
        let kelvin = try JSONParser.parse(Array("{\"\u{212A}\":1,\"K\":2}".utf8))
        guard case let .object(members) = kelvin else { Issue.record("not an object"); return }
        #expect(members.count == 2)
        #expect(try JSONParser.parse(Array(("{" + many + "}").utf8))["k39"] == .number("39"))
        #expect(try JSONParser.parse(Array(#"{"a":1,"a":2}"#.utf8), allowingRepeatedNames: true)["a"] == .number("1"))
    }

    /// A tape's readers answer what the tree of the same document holds: each member found by its
    /// bytes (an escaped name too), strings compared and read unescaped, numbers and booleans,
    /// nothing for a name that is absent or a value that is not an object.
    @Test func aTapeReadsWhatTheTreeHolds() throws {
        let documents = [
            #"{"alg":"RS256","kid":"k-1","typ":"JWT"}"#,
            #"{"aud":"https://rtdn.example.com/play","email_verified":true,"exp":1767229200,"iat":1767225600.5,"n":null,"list":[1,"two",{"x":false}]}"#,
            #"{"a\u0062":"x\"y\u00e9","message":{"data":"eyJ2IjoxfQ==","messageId":"7"},"":"empty","\u00e9":-0.0}"#,
            #"{"deep":{"deeper":{"deepest":[[],{}]}},"k":"\/slash"}"#,
        ]
        for text in documents {
            let tape = try JSONTape(Array(text.utf8)), tree = try JSONParser.parse(Array(text.utf8))
            #expect(tape.value(JSONTape.root) == tree, "\(text)")
            guard case let .object(members) = tree else { Issue.record("not an object: \(text)"); continue }
            #expect(tape.members(of: JSONTape.root).count == members.count)
            for (name, value) in members {
                guard let at = tape.member(name) else { Issue.record("\(name) not found in \(text)"); continue }
                #expect(tape.value(at) == value, "\(name)")
                #expect(tape.string(at) == value.stringValue && tape.int64(at) == value.int64Value && tape.bool(at) == value.boolValue, "\(name)")
                #expect(tape.string(at, is: value.stringValue ?? "\u{0}") == (value.stringValue != nil), "\(name)")
                #expect(tape.isObject(at) == { if case .object = value { true } else { false } }(), "\(name)")
                #expect(tape.isNull(at) == (value == .null), "\(name)")
                if case let .object(inner) = value, let first = inner.first {
                    #expect(tape.member(first.0, of: at).map { tape.value($0) } == first.1, "\(name).\(first.0)")
                    #expect(tape.member(first.0 + "?", of: at) == nil)
                }
                #expect(tape.member("x", of: at) == nil || value["x"] != nil, "a member of what is not an object")
            }
            #expect(tape.member("absent") == nil)
        }
        let escaped = try JSONTape(Array(#"{"a\u0062":"x\"y\u00e9"}"#.utf8))
        #expect(escaped.member("ab").flatMap { escaped.stringBytes($0) }.map(Array.init) == Array("x\"yé".utf8))
        #expect(escaped.member("ab").map { escaped.string($0, is: "x\"yé") } == true)
        #expect(escaped.member("ab").map { escaped.string($0, is: #"x\"y\u00e9"#) } == false, "compared as read, not as written")
    }

    /// CSV cells a spreadsheet would run as formulas are neutralised (OWASP), and read back
    /// as written (Hardening IV, 16).
    @Test func csvCellsNeverStartAFormula() {
        for text in ["=1+1", "+1", "-2", "@SUM(A1)", "\t=1", "\r=1", "=HYPERLINK(\"x\",\"y\")"] {
            let field = DelimitedRecords.csvField(text)
            #expect(field.hasPrefix("\"'"), "\(text) -> \(field)")
            let read = DelimitedRecords.csvFields(Array((field + "\r\n").utf8))
            #expect(read.count == 1 && DelimitedRecords.csvValue(read[0]) == text, "\(text)")
        }
        #expect(DelimitedRecords.csvField("plain") == "plain" && DelimitedRecords.csvField("a,b") == "\"a,b\"")
        #expect(DelimitedRecords.csvValue("'plain") == "'plain")  // only a neutralised formula loses its '
    }

    @Test func writerEscapesControlCharacters() {
        #expect(JSONWriter.serialize(.string("a\"b\\c\n\u{1}")) == #""a\"b\\c\n\u0001""#)
    }

    /// The writer's own digits are the standard library's, at the ends of Int64 and between.
    @Test func writerIntegersAreTheirDecimalText() {
        var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_767_225_600_000, .max, .min, .max - 1, .min + 1]
        var next: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            next = next &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Int64(bitPattern: next) >> (next % 64))
        }
        for value in values {
            var w = JSONWriter()
            w.integer(value)
            #expect(w.text == String(value), "\(value)")
        }
    }

    /// A string's plain run is scanned eight bytes at a time: a closing quote, an escape or a
    /// control byte at every offset of a word (and of the next), after ASCII or two-byte UTF-8,
    /// ends the run exactly there; a space and DEL do not.
    @Test func aStringsRunEndsAtItsFirstSpecialByteAtEveryOffset() throws {
        for filler in ["a", "é"] {
            for count in 0..<20 {
                let before = String(repeating: filler, count: count)
                let at = 1 + before.utf8.count  // the special byte's index (the opening quote is byte 0)
                #expect(try JSONParser.parse(Array("\"\(before)\"".utf8)).stringValue == before)
                #expect(try JSONParser.parse(Array("\"\(before)\\n\(before)\"".utf8)).stringValue == before + "\n" + before)
                #expect(try JSONParser.parse(Array("\"\(before) \u{7F}\(before)\"".utf8)).stringValue == before + " \u{7F}" + before)
                for control: UInt8 in [0x00, 0x01, 0x1F] {
                    let bad = Array("\"\(before)".utf8) + [control] + Array("zzzzzzzzzz\"".utf8)
                    #expect(throws: GateKitError(.EINVAL, "malformed JSON at byte \(at + 1): control character in string")) {
                        try JSONParser.parse(bad)
                    }
                }
                #expect(throws: GateKitError(.EINVAL, "malformed JSON at byte \(at + 1): unexpected data after the JSON value")) {
                    try JSONParser.parse(Array("\"\(before)\"zzzzzzzzzz\"".utf8))
                }
            }
        }
    }
}

/// Work done ahead on helper threads for a caller taking it in order: every index done exactly
/// once, results in order, helpers working while the caller is busy elsewhere, the caller doing
/// the work itself when there is no helper, and no wait after `finish`.
@Suite struct WorkAheadTests {
    @Test func everyIndexOnceInOrder() {
        for (count, helpers) in [(0, 3), (1, 3), (7, 3), (100, 0), (100, 1), (1000, 7), (33, 63)] {
            let calls = Mutex<[Int]>([])
            let work = WorkAhead(count, helpers: helpers, minimumPerHelper: 4) { (i) -> Int in
                calls.withLock { $0.append(i) }
                return i * i
            }
            let out = (0..<count).map { work.value($0) }
            #expect(work.value(count) == nil && work.value(-1) == nil)
            work.finish()
            #expect(out == (0..<count).map { $0 * $0 }, "\(count) with \(helpers) helpers")
            #expect(calls.withLock { $0.sorted() } == Array(0..<count))
        }
    }

    @Test func helpersWorkWhileTheCallerIsBusy() {
        let done = Mutex(0)
        let work = WorkAhead(64, helpers: 1, minimumPerHelper: 8) { (i) -> Int in
            done.withLock { $0 += 1 }
            return i
        }
        defer { work.finish() }
        // The caller takes nothing: the helper alone gets through every piece.
        var waited = 0
        while done.withLock({ $0 }) < 64 && waited < 5000 {
            usleep(1000)
            waited += 1
        }
        #expect(done.withLock { $0 } == 64)
        #expect((0..<64).map { work.value($0) } == Array(0..<64))
    }

    @Test func theCallerWorksWhenNoHelperCan() {
        let me = pthread_self()
        let elsewhere = Mutex(0)
        let work = WorkAhead(40, helpers: 0) { (i) -> Int in
            if pthread_equal(pthread_self(), me) == 0 { elsewhere.withLock { $0 += 1 } }
            return i
        }
        #expect((0..<40).map { work.value($0) } == Array(0..<40))
        work.finish()
        #expect(elsewhere.withLock { $0 } == 0)
    }

    @Test func helpersRunOnOtherThreads() {
        let me = pthread_self()
        let elsewhere = Mutex(0)
        let work = WorkAhead(64, helpers: 3, minimumPerHelper: 8) { (i) -> Int in
            if pthread_equal(pthread_self(), me) == 0 { elsewhere.withLock { $0 += 1 } }
            usleep(200)
            return i
        }
        usleep(20_000)  // the helpers are busy before the caller asks for anything
        #expect((0..<64).map { work.value($0) } == Array(0..<64))
        work.finish()
        #expect(elsewhere.withLock { $0 } > 0)
    }

    @Test func finishStopsTheRestAndNothingWaitsAfter() {
        let started = Mutex(Set<Int>())
        let work = WorkAhead(1000, helpers: 2, minimumPerHelper: 8) { (i) -> Int in
            started.withLock { _ = $0.insert(i) }
            usleep(1000)
            return i
        }
        #expect(work.value(0) == 0)
        work.finish()
        let begun = started.withLock { $0 }
        #expect(begun.count < 1000)  // the helpers stopped handing out pieces
        // Begun before the finish (by a helper or, from the back, by the caller): its value;
        // never begun: nil at once, never a wait, and nothing new begins.
        for i in 0..<1000 { #expect(work.value(i) == (begun.contains(i) ? i : nil), "piece \(i)") }
        #expect(started.withLock { $0 } == begun)
    }
}

/// A handoff between two threads: everything put is taken once, in order, while the producer
/// waits at capacity; after close the consumer drains what waits and then gets nil.
@Suite struct HandoffTests {
    @Test func itemsPassInOrderAndCloseDrains() throws {
        let handoff = Handoff<Int>(capacity: 2)
        let taken = Mutex<[Int]>([])
        let consumer = try BackgroundThread.start("test consumer") {
            while let n = handoff.take() {
                usleep(n % 7 == 0 ? 500 : 0)  // a slow consumer fills the queue
                taken.withLock { $0.append(n) }
            }
        }
        for n in 0..<200 { handoff.put(n) }
        handoff.close()
        consumer.finish()
        #expect(taken.withLock { $0 } == Array(0..<200))
        handoff.put(7)  // after close: dropped, never blocks
        #expect(handoff.take() == nil)
    }
}
