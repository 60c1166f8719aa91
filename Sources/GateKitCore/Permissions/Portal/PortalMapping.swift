import GateKitSupport

/// Which entry of the desktop's permission store answers for which GateKit category, and
/// what its permission strings mean (docs/permissions.md has the table).
struct PortalMapping: Sendable {
    /// An entry of the permission store: a table and an id in it (`flatpak permission-show`).
    struct Entry: Hashable, Sendable {
        let table: String
        let id: String
    }

    private(set) var entries: [Int32: Entry]

    /// The portals' own tables: devices (camera, microphone), location, notifications.
    /// Every other built-in category has no portal counterpart and answers "not determined".
    static let builtIn: [Int32: Entry] = [
        PermissionCategory.camera: Entry(table: "devices", id: "camera"),
        PermissionCategory.microphone: Entry(table: "devices", id: "microphone"),
        PermissionCategory.locationWhenInUse: Entry(table: "location", id: "location"),
        PermissionCategory.locationAlways: Entry(table: "location", id: "location"),
        PermissionCategory.userNotification: Entry(table: "notifications", id: "notification"),
        PermissionCategory.notificationLocal: Entry(table: "notifications", id: "notification"),
        PermissionCategory.notificationRemote: Entry(table: "notifications", id: "notification"),
    ]

    init() { entries = PortalMapping.builtIn }

    /// Maps (or, with nil, unmaps) a category to an entry of the host's choosing.
    mutating func map(_ category: Int32, to entry: Entry?) { entries[category] = entry }

    static let maximumNameLength = 255

    /// A table or id as the store accepts it: 1-255 bytes, printable, no NUL.
    static func validate(_ name: String, _ what: String) throws(GateKitError) {
        guard !name.isEmpty, name.utf8.count <= maximumNameLength,
              name.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }) else {
            throw .invalid("the portal \(what) must be 1 to \(maximumNameLength) printable bytes, not \(Quoted.text(name))")
        }
    }

    /// The system state an app's permission strings mean: the portals store "yes", "no" or
    /// "ask" first; the location portal stores an accuracy ("NONE" denies, "EXACT", "CITY"…
    /// allow). No entry, "ask" or anything else is "not determined" (the stored state decides).
    static func systemState(table: String, strings: [String]?) -> Int32 {
        guard let first = strings?.first else { return 0 }
        if table == "location" {
            switch first {
            case "NONE": return 403
            case "COUNTRY", "CITY", "NEIGHBORHOOD", "STREET", "EXACT": return 200
            default: return 0
            }
        }
        switch first {
        case "yes": return 200
        case "no": return 403
        default: return 0
        }
    }
}
