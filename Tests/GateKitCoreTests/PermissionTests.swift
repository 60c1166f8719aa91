import Glibc
import Testing
@testable import GateKitSchema
@testable import GateKitLedger
@testable import GateKitPermissions
@testable import GateKitStore
@testable import GateKitSupport

/// A fresh store file in its own temporary folder.
private func temporaryStorePath() -> String {
    var template = Array("/tmp/gatekit-perm-swift-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { buffer -> String in
        guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return "/tmp" }
        return String(cString: base)
    }
    return dir + "/store.sqlite"
}

private func openEngine(_ path: String) throws -> PermissionEngine {
    try PermissionEngine(store: try TestStores.open(path))
}

private let allBuiltIns = PermissionCategory.builtIns.map(\.number)

/// Answers whatever `answer` holds, counting calls.
private final class FixedProvider: SystemStateProvider, @unchecked Sendable {
    private let lock = Lock()
    private var _answer: Int32
    private(set) var asked: [Int32] = []
    init(_ answer: Int32) { _answer = answer }
    var answer: Int32 {
        get { lock.withLock { _answer } }
        set { lock.withLock { _answer = newValue } }
    }
    func systemState(of category: Int32) -> Int32 {
        lock.withLock {
            asked.append(category)
            return _answer
        }
    }
}

/// Collects changes delivered to a subscriber.
private final class ChangeLog: @unchecked Sendable {
    private let lock = Lock()
    private var _changes: [PermissionChange] = []
    var changes: [PermissionChange] { lock.withLock { _changes } }
    func add(_ c: PermissionChange) { lock.withLock { _changes.append(c) } }
}

private func apply(_ d: PermissionDecision, category: String, stored: PermissionState, system: ProviderAnswer) -> PermissionState? {
    try? PermissionStateMachine.apply(d, category: category, stored: stored, system: system)
}

private func describeAll(_ engine: PermissionEngine) throws {
    for c in allBuiltIns { try engine.setUsageDescription(c, "needed for \(c)") }
}

@Suite struct PermissionModelTests {
    @Test func categoryNumbersAndNamesAreISHPermissionKits() {
        let expected: [(Int32, String)] = [
            (1000, "activity"), (2000, "health"), (3100, "location-always"), (3200, "location-when-in-use"),
            (4000, "microphone"), (5050, "photo-library"), (5100, "camera"), (6100, "notification-local"),
            (6200, "notification-remote"), (6500, "user-notification"), (7100, "social-facebook"),
            (7110, "social-twitter"), (7120, "social-sina-weibo"), (7130, "social-tencent-weibo"),
            (8200, "events"), (8250, "reminders"), (8500, "contacts"), (9000, "siri"),
            (10000, "speech-recognition"), (11000, "music-library"),
        ]
        #expect(PermissionCategory.builtIns.count == expected.count)
        for (number, name) in expected {
            #expect(PermissionCategory.builtIn(number)?.name.description == name)
            #expect(PermissionCategory.builtIn(named: name)?.number == number)
        }
        for retired: Int32 in [5000, 8100] {
            #expect(PermissionCategory.builtIn(retired) == nil)
            #expect(PermissionCategory.retiredMeaning(retired) != nil)
        }
        #expect(PermissionCategory.builtIn(0) == nil)
        #expect(PermissionCategory.hostRange.lowerBound == 1_000_000)
    }

    @Test func statesAndPromptability() {
        #expect(PermissionState.allCases.map(\.rawValue) == [0, 100, 200, 403, 406, 501])
        #expect(PermissionState.allCases.filter(\.allowsPrompt) == [.unknown, .askAgain])
        for s in PermissionState.allCases { #expect(PermissionState.named(s.name.description) == s) }
    }

    /// Every (stored state, provider answer, decision) combination against the table in
    /// docs/permissions.md.
    @Test func fullStateMachineTable() throws {
        let storedStates: [PermissionState] = [.unknown, .askAgain, .authorized, .denied, .doNotAsk]
        let answers: [ProviderAnswer] = [.notDetermined, .authorized, .denied, .unsupported]
        for stored in storedStates {
            for answer in answers {
                for decision in PermissionDecision.allCases {
                    let before = PermissionStateMachine.effective(stored: stored, system: answer)
                    let systemAlreadySaysSo = answer.state == decision.resultingState && decision.source == .system
                    let allowed = before.allowsPrompt || (systemAlreadySaysSo && stored.allowsPrompt)
                    let result = try? PermissionStateMachine.apply(decision, category: "x", stored: stored, system: answer)
                    if allowed {
                        #expect(result == decision.resultingState, "\(stored) \(answer) \(decision)")
                    } else {
                        #expect(result == nil, "\(stored) \(answer) \(decision)")
                        #expect(failure { _ = try PermissionStateMachine.apply(decision, category: "x", stored: stored, system: answer) } == .EPERM_NOT_PROMPTABLE)
                    }
                }
            }
        }
        // The table itself, spelled out for the no-provider case.
        #expect(apply(.askLater, category: "x", stored: .unknown, system: .notDetermined) == .askAgain)
        #expect(apply(.askLater, category: "x", stored: .askAgain, system: .notDetermined) == .askAgain)
        #expect(apply(.dontAsk, category: "x", stored: .askAgain, system: .notDetermined) == .doNotAsk)
        #expect(apply(.authorized, category: "x", stored: .unknown, system: .notDetermined) == .authorized)
        #expect(apply(.denied, category: "x", stored: .askAgain, system: .notDetermined) == .denied)
        for final: PermissionState in [.authorized, .denied, .doNotAsk] {
            for d in PermissionDecision.allCases {
                #expect(failure { _ = try PermissionStateMachine.apply(d, category: "x", stored: final, system: .notDetermined) } == .EPERM_NOT_PROMPTABLE)
            }
        }
    }

    @Test func providerAnswersAreValidated() {
        #expect((try? ProviderAnswer(raw: 0, category: 5100)) == .notDetermined)
        #expect((try? ProviderAnswer(raw: -5, category: 5100)) == .notDetermined)
        #expect((try? ProviderAnswer(raw: 200, category: 5100)) == .authorized)
        #expect((try? ProviderAnswer(raw: 403, category: 5100)) == .denied)
        #expect((try? ProviderAnswer(raw: 501, category: 5100)) == .unsupported)
        for bad: Int32 in [100, 406, 1, 404, Int32.max] {
            #expect(failure { _ = try ProviderAnswer(raw: bad, category: 5100) } == .EPERM_PROVIDER)
        }
    }
}

@Suite struct PermissionEngineTests {
    @Test func engineFollowsTheStateMachineAndPersists() throws {
        let path = temporaryStorePath()
        do {
            let engine = try openEngine(path)
            try describeAll(engine)
            let results: [(PermissionDecision, PermissionState)] = [(.askLater, .askAgain), (.dontAsk, .doNotAsk), (.authorized, .authorized), (.denied, .denied)]
            for (i, (decision, state)) in results.enumerated() {
                let c = allBuiltIns[i]
                #expect(try engine.state(c) == .unknown)
                try engine.record(c, decision: decision.rawValue)
                #expect(try engine.state(c) == state)
            }
            #expect(failure { try engine.record(allBuiltIns[1], decision: PermissionDecision.askLater.rawValue) } == .EPERM_NOT_PROMPTABLE)
            #expect(failure { try engine.record(allBuiltIns[0], decision: 9) } == .EPERM_DECISION)
        }
        // Another store and engine on the same file (as another process would).
        let again = try openEngine(path)
        #expect(try again.state(allBuiltIns[0]) == .askAgain)
        #expect(try again.state(allBuiltIns[1]) == .doNotAsk)
        #expect(try again.state(allBuiltIns[2]) == .authorized)
        #expect(try again.state(allBuiltIns[3]) == .denied)
        #expect(try again.pending([allBuiltIns[0], allBuiltIns[1], allBuiltIns[4]]) == [allBuiltIns[0], allBuiltIns[4]])
    }

    /// ISHPermissionKit reported contacts as authorized whatever the user answered: here every
    /// category reads back exactly what was recorded, for every decision.
    @Test func everyCategoryReadsBackEveryDecision() throws {
        let engine = try openEngine(temporaryStorePath())
        try describeAll(engine)
        for c in allBuiltIns {
            for decision in PermissionDecision.allCases {
                try engine.reset(c)
                if c == PermissionCategory.locationAlways { try engine.reset(PermissionCategory.locationWhenInUse) }
                try engine.record(c, decision: decision.rawValue)
                #expect(try engine.state(c) == decision.resultingState, "\(c) after \(decision)")
            }
        }
    }

    @Test func invalidCategoriesEachHaveTheirCode() throws {
        let engine = try openEngine(temporaryStorePath())
        #expect(failure { _ = try engine.state(0) } == .EPERM_CATEGORY)
        #expect(failure { _ = try engine.state(-1) } == .EPERM_CATEGORY)
        #expect(failure { _ = try engine.state(1234) } == .EPERM_CATEGORY)
        #expect(failure { _ = try engine.state(Int32.min) } == .EPERM_CATEGORY)
        #expect(failure { _ = try engine.state(5000) } == .EPERM_RETIRED)
        #expect(failure { _ = try engine.state(8100) } == .EPERM_RETIRED)
        #expect(failure { _ = try engine.state(1_000_000) } == .EPERM_CATEGORY)
        #expect(failure { try engine.reset(8100) } == .EPERM_RETIRED)
        #expect(failure { _ = try engine.history(5000) } == .EPERM_RETIRED)
    }

    /// ISHPermissionKit forgot the provider for five categories: here every category, every answer.
    @Test func providerOverridesEveryCategory() throws {
        let engine = try openEngine(temporaryStorePath())
        try describeAll(engine)
        try engine.registerCategory(1_000_000, name: "telemetry", usageDescription: "stats")
        let every = allBuiltIns + [1_000_000]
        for c in every { try engine.record(c, decision: PermissionDecision.dontAsk.rawValue) }
        let provider = FixedProvider(0)
        try engine.setSystemProvider(provider)
        for c in every { #expect(try engine.state(c) == .doNotAsk, "stored state read back for \(c)") }
        for answer: Int32 in [200, 403, 501] {
            provider.answer = answer
            for c in every { #expect(try engine.state(c).rawValue == answer, "\(c) with answer \(answer)") }
        }
        provider.answer = 0
        for c in every { #expect(try engine.state(c) == .doNotAsk) }
        #expect(Set(provider.asked) == Set(every))
        try engine.setSystemProvider(nil)
        for c in every { #expect(try engine.state(c) == .doNotAsk) }
    }

    /// The original's check was off for seven categories: here every one, on every path.
    @Test func usageDescriptionRequiredForEveryCategory() throws {
        let engine = try openEngine(temporaryStorePath())
        for c in allBuiltIns {
            let name = PermissionCategory.builtIn(c)?.name.description ?? "?"
            for decision in PermissionDecision.allCases {
                do {
                    try engine.record(c, decision: decision.rawValue)
                    Issue.record("recorded \(c) without a usage description")
                } catch {
                    #expect(error.code == .EPERM_NO_USAGE)
                    #expect(error.message.contains(name))
                }
            }
            #expect(failure { _ = try engine.pending([c]) } == .EPERM_NO_USAGE)
            #expect(failure { _ = try engine.next([c], after: 0) } == .EPERM_NO_USAGE)
            try engine.setUsageDescription(c, "Why \(name)")
            #expect(try engine.pending([c]) == [c])
            try engine.record(c, decision: PermissionDecision.askLater.rawValue)
        }
        #expect(failure { try engine.setUsageDescription(5100, "") } == .EINVAL)
        #expect(failure { try engine.setUsageDescription(5100, String(repeating: "x", count: 4097)) } == .EINVAL)
    }

    @Test func sequencingSkipsAndDeduplicates() throws {
        let engine = try openEngine(temporaryStorePath())
        try describeAll(engine)
        let always = PermissionCategory.locationAlways, whenInUse = PermissionCategory.locationWhenInUse
        let camera = PermissionCategory.camera, mic = PermissionCategory.microphone
        #expect(try engine.pending([]) == [])
        #expect(try engine.pending([camera, camera, mic]) == [camera, mic])
        try engine.record(mic, decision: PermissionDecision.denied.rawValue)
        #expect(try engine.pending([camera, mic]) == [camera])
        #expect(try engine.pending([mic]) == [])
        #expect(try engine.pending([whenInUse, always]) == [whenInUse, always])
        try engine.record(whenInUse, decision: PermissionDecision.askLater.rawValue)
        #expect(try engine.pending([whenInUse, always]) == [whenInUse, always])
        try engine.record(whenInUse, decision: PermissionDecision.dontAsk.rawValue)
        #expect(try engine.pending([whenInUse, always, camera]) == [camera])
        #expect(failure { try engine.record(always, decision: PermissionDecision.authorized.rawValue) } == .EPERM_BLOCKED)
        try engine.reset(whenInUse)
        try engine.record(whenInUse, decision: PermissionDecision.authorized.rawValue)
        #expect(try engine.pending([always]) == [always])
        #expect(failure { _ = try engine.next([camera], after: mic) } == .EINVAL)
    }

    /// The original advanced its index by one after a skip and could show a screen twice.
    /// Walk every combination of answers: no category twice, none unpromptable when shown,
    /// and location-always never after location-when-in-use was refused.
    @Test func walkingNeverRepeatsNorShowsUnpromptable() throws {
        let path = temporaryStorePath()
        let engine = try openEngine(path)
        try describeAll(engine)
        let sequence: [Int32] = [PermissionCategory.camera, PermissionCategory.locationWhenInUse, PermissionCategory.camera,
                                 PermissionCategory.locationAlways, PermissionCategory.microphone, PermissionCategory.locationWhenInUse]
        let decisions = PermissionDecision.allCases
        var walks = 0
        for a in decisions { for b in decisions { for c in decisions { for d in decisions {
            try engine.reset(PermissionCategory.all)
            var answers = [a, b, c, d].makeIterator()
            var shown: [Int32] = []
            var after: Int32 = 0
            while let next = try engine.next(sequence, after: after) {
                #expect(!shown.contains(next), "shown twice: \(next) in \(shown)")
                #expect(try engine.state(next).allowsPrompt)
                if next == PermissionCategory.locationAlways {
                    #expect(!PermissionSequencing.blocks(try engine.state(PermissionCategory.locationWhenInUse)))
                }
                shown.append(next)
                guard let answer = answers.next() else { break }
                try engine.record(next, decision: answer.rawValue)
                after = next
            }
            #expect(shown.count <= 4)
            if b == .denied || b == .dontAsk { #expect(!shown.contains(PermissionCategory.locationAlways)) }
            walks += 1
        } } } }
        #expect(walks == 256)
    }

    @Test func resetOneAndAllWithHistory() throws {
        let engine = try openEngine(temporaryStorePath())
        try describeAll(engine)
        try engine.record(5100, decision: PermissionDecision.dontAsk.rawValue)
        try engine.record(8200, decision: PermissionDecision.denied.rawValue)
        try engine.record(9000, decision: PermissionDecision.askLater.rawValue)
        try engine.record(9000, decision: PermissionDecision.authorized.rawValue)
        try engine.reset(5100)
        #expect(try engine.state(5100) == .unknown)
        #expect(try engine.state(8200) == .denied)
        try engine.reset(5100)  // already unknown: no history row
        try engine.reset(PermissionCategory.all)
        for c in allBuiltIns { #expect(try engine.state(c) == .unknown) }

        let history = try engine.history(PermissionCategory.all)
        let rows = history.map { ($0.category, $0.from, $0.to, $0.source) }
        let expected: [(Int32, Int32, Int32, PermissionChangeSource)] = [
            (5100, 0, 406, .user), (8200, 0, 403, .system), (9000, 0, 100, .user), (9000, 100, 200, .system),
            (5100, 406, 0, .reset), (8200, 403, 0, .reset), (9000, 200, 0, .reset),
        ]
        #expect(rows.count == expected.count)
        for (row, want) in zip(rows, expected) {
            #expect(row.0 == want.0 && row.1 == want.1 && row.2 == want.2 && row.3 == want.3)
        }
        #expect(history.map(\.id) == history.map(\.id).sorted())
        #expect(history.allSatisfy { $0.atMilliseconds > 1_700_000_000_000 })
        #expect(try engine.history(9000).count == 3)
        let json = try engine.historyJSON(5100)
        #expect(json.contains("\"category\":5100,\"name\":\"camera\",\"from\":0,\"from_state\":\"unknown\",\"to\":406,\"to_state\":\"do-not-ask\",\"source\":\"user\""))
        #expect(try JSONParser.parse(Array(json.utf8)) != .null)
    }

    @Test func historyIsAppendOnly() throws {
        let store = try TestStores.open(temporaryStorePath())
        let engine = try PermissionEngine(store: store)
        try engine.setUsageDescription(5100, "x")
        try engine.record(5100, decision: PermissionDecision.denied.rawValue)
        #expect(failure { try store.write { (db) throws(GateKitError) in try db.execute("UPDATE perm_history SET to_state = 200") } } != nil)
        #expect(failure { try store.write { (db) throws(GateKitError) in try db.execute("DELETE FROM perm_history") } } != nil)
        #expect(try engine.history(5100).count == 1)
    }

    @Test func hostCategoriesRegisterOnceWithOneMeaning() throws {
        let engine = try openEngine(temporaryStorePath())
        try engine.registerCategory(1_000_000, name: "telemetry", usageDescription: "stats")
        try engine.registerCategory(1_000_000, name: "telemetry", usageDescription: "stats, reworded")
        #expect(failure { try engine.registerCategory(1_000_000, name: "crash-reports", usageDescription: "x") } == .EPERM_CONFLICT)
        #expect(failure { try engine.registerCategory(1_000_001, name: "telemetry", usageDescription: "x") } == .EPERM_CONFLICT)
        #expect(failure { try engine.registerCategory(5100, name: "cam", usageDescription: "x") } == .EPERM_CONFLICT)
        #expect(failure { try engine.registerCategory(1_000_002, name: "camera", usageDescription: "x") } == .EPERM_CONFLICT)
        #expect(failure { try engine.registerCategory(8100, name: "book", usageDescription: "x") } == .EPERM_RETIRED)
        #expect(failure { try engine.registerCategory(999_999, name: "low", usageDescription: "x") } == .EPERM_CATEGORY)
        #expect(failure { try engine.registerCategory(1_000_003, name: "Upper", usageDescription: "x") } == .EINVAL)
        #expect(failure { try engine.registerCategory(1_000_003, name: "9lives", usageDescription: "x") } == .EINVAL)
        #expect(failure { try engine.registerCategory(1_000_003, name: String(repeating: "a", count: 65), usageDescription: "x") } == .EINVAL)
        #expect(try engine.categoryNumber(named: "telemetry") == 1_000_000)
        #expect(try engine.categoryName(1_000_000) == "telemetry")
        #expect(try engine.pending([1_000_000]) == [1_000_000])
        #expect(try engine.listJSON().contains("\"usage_description\":\"stats, reworded\""))
    }

    @Test func callbacksSeeThisHandleOtherHandlesAndTheProvider() throws {
        let path = temporaryStorePath()
        let engine = try openEngine(path)
        let other = try openEngine(path)
        try describeAll(engine)
        let log = ChangeLog()
        let token = try engine.subscribe { log.add($0) }
        try engine.record(5100, decision: PermissionDecision.askLater.rawValue)
        #expect(log.changes == [PermissionChange(category: 5100, old: .unknown, new: .askAgain)])
        try other.record(4000, decision: PermissionDecision.denied.rawValue)
        #expect(try engine.state(4000) == .denied)  // coherent at once
        #expect(log.changes.count == 1)              // reported on refresh
        try engine.refresh()
        #expect(log.changes.last == PermissionChange(category: 4000, old: .unknown, new: .denied))
        let provider = FixedProvider(0)
        try engine.setSystemProvider(provider)
        #expect(log.changes.count == 2)
        provider.answer = 200
        try engine.refresh()
        #expect(log.changes.count == 2 + allBuiltIns.count)
        #expect(log.changes.last?.new == .authorized)
        // The provider's change is in the history once, whichever handle saw it first.
        try other.setSystemProvider(provider)
        try other.refresh()
        #expect(try engine.history(1000).filter { $0.source == .provider }.count == 1)
        try engine.unsubscribe(token)
        #expect(failure { try engine.unsubscribe(token) } == .EPERM_TOKEN)
    }

    @Test func unsubscribingInsideACallbackStopsFurtherCalls() throws {
        let engine = try openEngine(temporaryStorePath())
        try describeAll(engine)
        let log = ChangeLog()
        let tokenBox = ChangeLogToken()
        tokenBox.token = try engine.subscribe { change in
            log.add(change)
            try? engine.unsubscribe(tokenBox.token)
        }
        try engine.record(5100, decision: PermissionDecision.askLater.rawValue)
        try engine.reset(PermissionCategory.all)
        #expect(log.changes.count == 1)
    }

    @Test func dataVersionProbeSeesOtherConnectionsOnly() throws {
        let path = temporaryStorePath()
        let store = try Store(schema: .gatekit, path: path, appID: nil)
        let other = try Store(schema: .gatekit, path: path, appID: nil)
        let probe = store.makeChangeProbe()
        try store.read { (db) throws(GateKitError) in
            #expect(try probe.changed())      // first call
            #expect(try !probe.changed())
        }
        try store.write { (db) throws(GateKitError) in try db.execute("INSERT INTO gatekit_meta VALUES ('a', 'b')") }
        try store.read { (db) throws(GateKitError) in #expect(try !probe.changed()) }
        try other.write { (db) throws(GateKitError) in try db.execute("INSERT INTO gatekit_meta VALUES ('c', 'd')") }
        try store.read { (db) throws(GateKitError) in
            #expect(try probe.changed())
            #expect(try !probe.changed())
        }
    }
}

private final class ChangeLogToken: @unchecked Sendable {
    var token: Int32 = 0
}

@Suite struct PermissionWatcherTests {
    @Test func watcherDeliversAnotherConnectionsChangeOnItsThread() throws {
        let path = temporaryStorePath()
        let engine = try openEngine(path)
        let other = try openEngine(path)
        try other.setUsageDescription(PermissionCategory.contacts, "x")
        let log = ChangeLog()
        let threads = ThreadLog()
        _ = try engine.subscribe { change in
            log.add(change)
            threads.add(pthread_self())
        }
        try engine.startWatching(intervalMilliseconds: 5, includeProvider: false)
        #expect(failure { try engine.startWatching(intervalMilliseconds: 5, includeProvider: false) } == .EPERM_WATCHING)
        try other.record(PermissionCategory.contacts, decision: PermissionDecision.dontAsk.rawValue)
        var waited = 0
        while log.changes.isEmpty && waited < 5000 {
            usleep(5000)
            waited += 5
        }
        #expect(try engine.stopWatching())
        #expect(try !engine.stopWatching())
        #expect(log.changes == [PermissionChange(category: PermissionCategory.contacts, old: .unknown, new: .doNotAsk)])
        #expect(threads.all.allSatisfy { pthread_equal($0, pthread_self()) == 0 })
        #expect(failure { try engine.startWatching(intervalMilliseconds: 0, includeProvider: false) } == .EINVAL)
    }
}

private final class ThreadLog: @unchecked Sendable {
    private let lock = Lock()
    private var threads: [pthread_t] = []
    var all: [pthread_t] { lock.withLock { threads } }
    func add(_ t: pthread_t) { lock.withLock { threads.append(t) } }
}
