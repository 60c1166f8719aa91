import Testing
@testable import GateKitPermissions
@testable import GateKitSupport

@Suite struct PortalMappingTests {
    @Test func thePortalsStringsMeanTheseStates() {
        #expect(PortalMapping.systemState(table: "devices", strings: ["yes"]) == 200)
        #expect(PortalMapping.systemState(table: "devices", strings: ["no"]) == 403)
        #expect(PortalMapping.systemState(table: "devices", strings: ["ask"]) == 0)
        #expect(PortalMapping.systemState(table: "devices", strings: []) == 0)
        #expect(PortalMapping.systemState(table: "devices", strings: nil) == 0)
        #expect(PortalMapping.systemState(table: "notifications", strings: ["YES"]) == 0)  // exact strings only
        #expect(PortalMapping.systemState(table: "location", strings: ["NONE", "0"]) == 403)
        for accuracy in ["COUNTRY", "CITY", "NEIGHBORHOOD", "STREET", "EXACT"] {
            #expect(PortalMapping.systemState(table: "location", strings: [accuracy, "1700000000"]) == 200)
        }
        #expect(PortalMapping.systemState(table: "location", strings: ["yes"]) == 0)
    }

    @Test func builtInsMapToThePortalsTablesAndHostsCanRemap() {
        var m = PortalMapping()
        #expect(m.entries[PermissionCategory.camera] == PortalMapping.Entry(table: "devices", id: "camera"))
        #expect(m.entries[PermissionCategory.locationAlways] == m.entries[PermissionCategory.locationWhenInUse])
        #expect(m.entries[PermissionCategory.contacts] == nil)  // no portal counterpart
        m.map(1_000_001, to: PortalMapping.Entry(table: "background", id: "background"))
        m.map(PermissionCategory.camera, to: nil)
        #expect(m.entries[1_000_001]?.table == "background")
        #expect(m.entries[PermissionCategory.camera] == nil)
        #expect(throws: GateKitError.self) { try PortalMapping.validate("", "table") }
        #expect(throws: GateKitError.self) { try PortalMapping.validate("a\u{1}b", "id") }
        #expect(throws: GateKitError.self) { try PortalMapping.validate(String(repeating: "x", count: 256), "id") }
    }

    @Test func theFlatpakAppIDComesFromItsApplicationSection() throws {
        let folder = TemporaryFolder()
        let info = folder.file("flatpak-info")
        Files.write(info, Array("[Instance]\nname=not.this\n\n[Application]\nruntime=x\nname=org.example.Notes\n".utf8))
        #expect(try FlatpakInfo.appID(path: info) == "org.example.Notes")
        Files.write(info, Array("[Instance]\nname=org.example.Wrong\n".utf8))
        #expect(throws: GateKitError.self) { try FlatpakInfo.appID(path: info) }
        #expect { try FlatpakInfo.appID(path: folder.file("missing")) } throws: {
            ($0 as? GateKitError)?.message.contains("outside a Flatpak sandbox") == true
        }
    }
}
