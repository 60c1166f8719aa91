import Glibc
import Testing
@testable import GateKitSchema
@testable import GateKitEULA
@testable import GateKitPermissions
@testable import GateKitStore
@testable import GateKitSupport

/// The test server's libpq string (scripts/with-postgres.sh, started by `make test`), or nil
/// with the reason printed. Under `GATEKIT_REQUIRE_POSTGRES=1` a missing server fails the test.
func postgresTestServer() -> String? {
    if let conninfo = getenv("GATEKIT_TEST_POSTGRES") { return String(cString: conninfo) }
    if let required = getenv("GATEKIT_REQUIRE_POSTGRES"), String(cString: required) == "1" {
        Issue.record("GATEKIT_REQUIRE_POSTGRES=1 but GATEKIT_TEST_POSTGRES is unset: run through scripts/with-postgres.sh")
    } else {
        print("SKIP: no PostgreSQL test server (GATEKIT_TEST_POSTGRES unset); `make test` starts one")
    }
    return nil
}

/// A fresh app id per call: each is its own schema on the shared test database.
func uniqueAppID(_ tag: String) -> String {
    "swift.\(tag).\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
}

@Suite struct PostgresSQLTests {
    @Test func numberedParametersBecomeDollarParametersOutsideQuotes() throws {
        let (text, count) = try PostgresSQL.translate("SELECT ?1, '?2', \"a?3\", x = ?12 AND y IS ?2")
        #expect(text == "SELECT $1, '?2', \"a?3\", x = $12 AND y IS $2")
        #expect(count == 12)
        #expect(throws: GateKitError.self) { try PostgresSQL.translate("SELECT ?") }
    }

    @Test func connectionStringsAreToldFromPaths() {
        for s in ["postgresql://db1/gatekit", "postgres://u@h", "host=db1 dbname=gatekit", "  dbname = x", "service=prod"] {
            #expect(PostgresConnectionString.isConnectionString(s), "\(s)")
        }
        for s in ["store.sqlite", "/var/lib/app/host=x.sqlite", "a=b.sqlite", "./host=x", "", "postgresql:/x"] {
            #expect(!PostgresConnectionString.isConnectionString(s), "\(s)")
        }
    }

    @Test func displayNeverHoldsThePasswordAndRedactionRemovesIt() {
        #expect(PostgresConnectionString.display(user: "app", host: "/run/postgresql", port: "5432", database: "gk")
            == "postgresql://app@%2Frun%2Fpostgresql:5432/gk")
        #expect(PostgresConnectionString.redacting("s3cr3t", in: "FATAL: s3cr3t here and s3cr3t") == "FATAL: ******** here and ********")
        #expect(PostgresConnectionString.redacting(nil, in: "x") == "x")
    }

    @Test func namespacesFitPostgresIdentifiers() throws {
        #expect(try PostgresNamespace.namespace(appID: "com.example.app") == "gatekit/com.example.app")
        let long = String(repeating: "a", count: 128)
        let name = try PostgresNamespace.namespace(appID: long)
        #expect(name.utf8.count <= 63)
        #expect(name != (try PostgresNamespace.namespace(appID: long + "b")))
    }
}

@Suite(.serialized) struct PostgresStoreTests {
    let v1 = String(repeating: "1", count: 64)

    @Test func createsVersionsAndKeepsAppsApart() throws {
        guard let server = postgresTestServer() else { return }
        let a = uniqueAppID("a"), b = uniqueAppID("b")
        let storeA = try Store(schema: .gatekit, path: server, appID: a)
        #expect(storeA.backend == .postgresql)
        #expect(storeA.path.hasPrefix("postgresql://"))
        try EULAGate(store: storeA).record(.accepted, documentID: "terms", hash: v1, user: nil)
        let storeB = try Store(schema: .gatekit, path: server, appID: b)
        #expect(try EULAGate(store: storeB).shouldPresent(documentID: "terms", hash: v1, user: nil))
        #expect(try !EULAGate(store: Store(schema: .gatekit, path: server, appID: a)).shouldPresent(documentID: "terms", hash: v1, user: nil))
        let version = try storeA.read { (db) throws(GateKitError) in try db.scalar("SELECT value::bigint FROM gatekit_meta WHERE key = 'schema_version'") }
        #expect(version == StoreSchema.gatekit.currentVersion)
        #expect(try storeA.integrityReport().isEmpty)
    }

    @Test func aNewerSchemaAndAForeignSchemaAreRefusedAndLeftAlone() throws {
        guard let server = postgresTestServer() else { return }
        let app = uniqueAppID("newer")
        let store = try Store(schema: .gatekit, path: server, appID: app)
        try store.write { (db) throws(GateKitError) in try db.execute("UPDATE gatekit_meta SET value = '99' WHERE key = 'schema_version'") }
        #expect { try Store(schema: .gatekit, path: server, appID: app) } throws: { ($0 as? GateKitError)?.code == .ENEWER }
        #expect(try store.read { (db) throws(GateKitError) in try db.scalar("SELECT value::bigint FROM gatekit_meta WHERE key = 'schema_version'") } == 99)
        // A newer GateKit's append-only tables carry triggers this one does not know: the
        // version still decides. The same unknown trigger in a store of this version is refused.
        try store.write { (db) throws(GateKitError) in
            try db.execute("CREATE TABLE later_facts(id int); CREATE TRIGGER later_facts_append_only BEFORE UPDATE ON later_facts FOR EACH ROW EXECUTE FUNCTION gatekit_append_only()")
        }
        #expect { try Store(schema: .gatekit, path: server, appID: app) } throws: { ($0 as? GateKitError)?.code == .ENEWER }
        try store.write { (db) throws(GateKitError) in
            try db.execute("UPDATE gatekit_meta SET value = '\(StoreSchema.gatekit.currentVersion)' WHERE key = 'schema_version'")
        }
        #expect { try Store(schema: .gatekit, path: server, appID: app) } throws: {
            ($0 as? GateKitError)?.code == .EUNSAFE && ($0 as? GateKitError)?.message.contains("later_facts_append_only") == true
        }

        let foreign = uniqueAppID("foreign")
        try store.write { (db) throws(GateKitError) in
            try db.execute("CREATE SCHEMA \(PostgresNamespace.quoted(try PostgresNamespace.namespace(appID: foreign))); CREATE TABLE \(PostgresNamespace.quoted(try PostgresNamespace.namespace(appID: foreign))).orders(id int)")
        }
        #expect { try Store(schema: .gatekit, path: server, appID: foreign) } throws: { ($0 as? GateKitError)?.code == .ENOTSTORE }
        let tables = try store.read { (db) throws(GateKitError) in
            try db.statement("SELECT count(*) FROM pg_tables WHERE schemaname = ?1").bind(1, text: try PostgresNamespace.namespace(appID: foreign))
        }
        #expect(try tables.step() && tables.int64(0) == 1)
        tables.reset()
    }

    @Test func openingOnlyAnExistingStoreCreatesNothing() throws {
        guard let server = postgresTestServer() else { return }
        let app = uniqueAppID("existing")
        #expect { try Store(schema: .gatekit, path: server, appID: app, mustExist: true) } throws: { ($0 as? GateKitError)?.code == .ENOTFOUND }
        let other = try Store(schema: .gatekit, path: server, appID: uniqueAppID("observer"))
        let schemas = try other.read { (db) throws(GateKitError) in
            try db.statement("SELECT count(*) FROM pg_namespace WHERE nspname = ?1").bind(1, text: try PostgresNamespace.namespace(appID: app))
        }
        #expect(try schemas.step() && schemas.int64(0) == 0)
        schemas.reset()
        _ = try Store(schema: .gatekit, path: server, appID: app)
        #expect(try Store(schema: .gatekit, path: server, appID: app, mustExist: true).backend == .postgresql)
    }

    @Test func historyIsAppendOnly() throws {
        guard let server = postgresTestServer() else { return }
        let store = try Store(schema: .gatekit, path: server, appID: uniqueAppID("append"))
        try EULAGate(store: store).record(.accepted, documentID: "terms", hash: v1, user: nil)
        for sql in ["UPDATE eula_decisions SET decision = 2", "DELETE FROM eula_decisions", "TRUNCATE eula_decisions"] {
            #expect { try store.write { (db) throws(GateKitError) in try db.execute(sql) } } throws: {
                ($0 as? GateKitError)?.message.contains("append-only") == true
            }
        }
        #expect(try EULAGate(store: store).history(documentID: nil, user: .everyone).count == 1)
    }

    @Test func passwordsNeverReachAMessage() throws {
        guard postgresTestServer() != nil else { return }
        for (string, code) in [("postgresql://gatekit:Sekr3tPw@127.0.0.1:1/gatekit_test?connect_timeout=2", GateKitError.Code.ECONNECTION),
                               ("postgresql://gatekit:Sekr3tPw@127.0.0.1/db?bogus_option=Sekr3tPw", .EINVAL),
                               ("host=127.0.0.1 port=1 password=Sekr3tPw connect_timeout=2", .ECONNECTION),
                               ("host=127.0.0.1 password='Sekr3tPw", .EINVAL)] {
            do {
                _ = try Store(schema: .gatekit, path: string, appID: "com.example.app")
                Issue.record("\(code) expected")
            } catch {
                #expect(error.code == code)
                #expect(!error.message.contains("Sekr3tPw"), "\(error.message)")
            }
        }
    }

    @Test func otherConnectionsCommitsReachTheProbeButOwnCommitsDoNot() throws {
        guard let server = postgresTestServer() else { return }
        let app = uniqueAppID("probe")
        let mine = try Store(schema: .gatekit, path: server, appID: app), other = try Store(schema: .gatekit, path: server, appID: app)
        let probe = mine.makeChangeProbe()
        #expect(try mine.read { _ throws(GateKitError) in try probe.changed() })
        try PermissionEngine(store: mine).setUsageDescription(PermissionCategory.camera, "to test")
        #expect(try !mine.read { _ throws(GateKitError) in try probe.changed() })
        try PermissionEngine(store: other).setUsageDescription(PermissionCategory.microphone, "to test")
        var seen = false
        for _ in 0..<200 where !seen {  // the notification crosses the server: allow up to 2 s
            seen = try mine.read { _ throws(GateKitError) in try probe.changed() }
            if !seen { usleep(10_000) }
        }
        #expect(seen)
        #expect(try !mine.read { _ throws(GateKitError) in try probe.changed() })
    }

    @Test func aKilledConnectionIsReplacedOnTheNextCall() throws {
        guard let server = postgresTestServer() else { return }
        let app = uniqueAppID("killed")
        let store = try Store(schema: .gatekit, path: server, appID: app), admin = try Store(schema: .gatekit, path: server, appID: app)
        let gate = EULAGate(store: store)
        try gate.record(.accepted, documentID: "terms", hash: v1, user: nil)
        func kill() throws {
            let pid = try store.read { (db) throws(GateKitError) in try db.scalar("SELECT pg_backend_pid()") }
            _ = try admin.read { (db) throws(GateKitError) in try db.statement("SELECT pg_terminate_backend(CAST(?1 AS integer))").bind(1, pid).step() }
            usleep(50_000)
        }
        try kill()
        #expect(try !gate.shouldPresent(documentID: "terms", hash: v1, user: nil))  // a read reconnects
        try kill()
        try gate.record(.declined, documentID: "terms", hash: v1, user: nil)          // so does a write
        #expect(try gate.history(documentID: "terms", user: .defaultUser).map(\.kind) == [.accepted, .declined])
    }
}

/// The PostgreSQL session's safety settings, read back from the server (issue 32).
@Suite(.serialized) struct PostgresSettingsTests {
    static func show(_ store: Store, _ sql: String) throws -> String? {
        try store.read { (db) throws(GateKitError) -> String? in
            let s = try db.statement(sql)
            defer { s.reset() }
            return try s.step() ? s.text(0) : nil
        }
    }

    @Test func theSessionRunsWithGateKitsSettings() throws {
        guard let server = postgresTestServer() else { return }
        let app = uniqueAppID("settings")
        let store = try Store(schema: .gatekit, path: server, appID: app)
        #expect(try Self.show(store, "SHOW statement_timeout") == "30s")
        #expect(try Self.show(store, "SHOW idle_in_transaction_session_timeout") == "1min")
        #expect(try Self.show(store, "SHOW search_path") == "\"gatekit/\(app)\"")
        #expect(try Self.show(store, "SHOW client_encoding") == "UTF8")
        #expect(try Self.show(store, "SELECT current_setting('application_name')") == "gatekit")
        // A string that sets its own timeout is obeyed.
        let custom = try Store(schema: .gatekit, path: server + " options='-c statement_timeout=1234'", appID: app)
        #expect(try Self.show(custom, "SHOW statement_timeout") == "1234ms")
    }

    @Test func tcpIsVerifiedTLSUnlessTheStringSaysOtherwise() throws {
        guard let server = postgresTestServer(), let tcp = getenv("GATEKIT_TEST_POSTGRES_TCP"), let ca = getenv("GATEKIT_TEST_POSTGRES_CA") else { return }
        let app = uniqueAppID("tls")
        let ssl = "SELECT ssl::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
        let verified = try Store(schema: .gatekit, path: String(cString: tcp) + " sslrootcert=" + String(cString: ca), appID: app)
        #expect(try Self.show(verified, ssl) == "true")
        let plain = try Store(schema: .gatekit, path: String(cString: tcp) + " sslmode=disable", appID: app)
        #expect(try Self.show(plain, ssl) == "false")
        #expect(try Self.show(Store(schema: .gatekit, path: server, appID: app), ssl) == "false")  // a Unix socket: no TLS needed
        #expect { try Store(schema: .gatekit, path: String(cString: tcp), appID: app) } throws: {
            ($0 as? GateKitError)?.code == .ECONNECTION && ($0 as? GateKitError)?.message.contains("certificate verify failed") == true
        }
    }
}
