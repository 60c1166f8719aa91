import GateKitSupport

/// A permission category: a number that is persisted and never changes meaning.
///
/// Built-in numbers are ISHPermissionKit's (thousands = family, hundreds/tens = variant).
/// 5000 and 8100 are retired and refused. Hosts register their own categories with numbers
/// from `hostRange` (1,000,000 up) and a name.
public enum PermissionCategory {
    public static let activity: Int32 = 1000
    public static let health: Int32 = 2000
    public static let locationAlways: Int32 = 3100
    public static let locationWhenInUse: Int32 = 3200
    public static let microphone: Int32 = 4000
    public static let photoLibrary: Int32 = 5050
    public static let camera: Int32 = 5100
    public static let notificationLocal: Int32 = 6100
    public static let notificationRemote: Int32 = 6200
    public static let userNotification: Int32 = 6500
    public static let socialFacebook: Int32 = 7100
    public static let socialTwitter: Int32 = 7110
    public static let socialSinaWeibo: Int32 = 7120
    public static let socialTencentWeibo: Int32 = 7130
    public static let events: Int32 = 8200
    public static let reminders: Int32 = 8250
    public static let contacts: Int32 = 8500
    public static let siri: Int32 = 9000
    public static let speechRecognition: Int32 = 10000
    public static let musicLibrary: Int32 = 11000

    /// `GATEKIT_PERM_ALL`: "every category", accepted by reset and history only.
    public static let all: Int32 = -1

    /// Numbers hosts may register. Everything below is GateKit's.
    public static let hostRange: ClosedRange<Int32> = 1_000_000...Int32.max

    public struct BuiltIn: Sendable {
        public let number: Int32
        public let name: StaticString
        /// Kept for stored data; the platform API behind it is deprecated.
        public let deprecated: Bool
    }

    /// Every built-in category, in number order.
    public static let builtIns: [BuiltIn] = [
        BuiltIn(number: activity, name: "activity", deprecated: false),
        BuiltIn(number: health, name: "health", deprecated: false),
        BuiltIn(number: locationAlways, name: "location-always", deprecated: false),
        BuiltIn(number: locationWhenInUse, name: "location-when-in-use", deprecated: false),
        BuiltIn(number: microphone, name: "microphone", deprecated: false),
        BuiltIn(number: photoLibrary, name: "photo-library", deprecated: false),
        BuiltIn(number: camera, name: "camera", deprecated: false),
        BuiltIn(number: notificationLocal, name: "notification-local", deprecated: true),
        BuiltIn(number: notificationRemote, name: "notification-remote", deprecated: true),
        BuiltIn(number: userNotification, name: "user-notification", deprecated: false),
        BuiltIn(number: socialFacebook, name: "social-facebook", deprecated: true),
        BuiltIn(number: socialTwitter, name: "social-twitter", deprecated: true),
        BuiltIn(number: socialSinaWeibo, name: "social-sina-weibo", deprecated: true),
        BuiltIn(number: socialTencentWeibo, name: "social-tencent-weibo", deprecated: true),
        BuiltIn(number: events, name: "events", deprecated: false),
        BuiltIn(number: reminders, name: "reminders", deprecated: false),
        BuiltIn(number: contacts, name: "contacts", deprecated: false),
        BuiltIn(number: siri, name: "siri", deprecated: false),
        BuiltIn(number: speechRecognition, name: "speech-recognition", deprecated: false),
        BuiltIn(number: musicLibrary, name: "music-library", deprecated: false),
    ]

    /// Retired numbers: data stored under them once meant something else.
    public static func retiredMeaning(_ number: Int32) -> StaticString? {
        switch number {
        case 5000: "the old photo library (assets library)"
        case 8100: "the old address book"
        default: nil
        }
    }

    /// The built-in category with this number (a switch: no lookup cost on the hot path).
    public static func builtIn(_ number: Int32) -> BuiltIn? {
        let index: Int
        switch number {
        case activity: index = 0
        case health: index = 1
        case locationAlways: index = 2
        case locationWhenInUse: index = 3
        case microphone: index = 4
        case photoLibrary: index = 5
        case camera: index = 6
        case notificationLocal: index = 7
        case notificationRemote: index = 8
        case userNotification: index = 9
        case socialFacebook: index = 10
        case socialTwitter: index = 11
        case socialSinaWeibo: index = 12
        case socialTencentWeibo: index = 13
        case events: index = 14
        case reminders: index = 15
        case contacts: index = 16
        case siri: index = 17
        case speechRecognition: index = 18
        case musicLibrary: index = 19
        default: return nil
        }
        return builtIns[index]
    }

    public static func builtIn(named name: String) -> BuiltIn? {
        builtIns.first { $0.name.description == name }
    }

    public static let maximumNameLength = 64

    /// Host category names: 1-64 of [a-z0-9._-], starting with a letter (they appear in the
    /// tool's command lines and in JSON).
    public static func validateName(_ name: String) throws(GateKitError) {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumNameLength else {
            throw .invalid("category name must be 1 to \(maximumNameLength) characters")
        }
        guard bytes[0] >= UInt8(ascii: "a") && bytes[0] <= UInt8(ascii: "z") else {
            throw .invalid("category name \(Quoted.text(name)) must start with a lowercase letter")
        }
        for c in bytes {
            let ok = (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: ".")
            guard ok else { throw .invalid("category name \(Quoted.text(name)) may hold only a-z, 0-9, '.', '-' and '_'") }
        }
    }

    /// "5100 (camera)" for messages.
    static func label(_ number: Int32, hostName: String? = nil) -> String {
        if let b = builtIn(number) { return "\(number) (\(b.name))" }
        if let hostName { return "\(number) (\(hostName))" }
        return "\(number)"
    }
}
