import CDBus
import Glibc
import GateKitSupport

/// A private connection to the session bus, speaking to the desktop's permission store
/// (`org.freedesktop.impl.portal.PermissionStore`, served by xdg-permission-store).
final class DBusSession: @unchecked Sendable {
    static let service = "org.freedesktop.impl.portal.PermissionStore"
    static let path = "/org/freedesktop/impl/portal/PermissionStore"
    static let interface = "org.freedesktop.impl.portal.PermissionStore"
    /// How long a method call may wait for the store's answer.
    static let callTimeoutMilliseconds: Int32 = 2000

    let bus: gk_dbus
    private let connection: OpaquePointer

    /// Connects to the session bus `$DBUS_SESSION_BUS_ADDRESS` names (read now: libdbus's own
    /// lookup remembers the first address a process used). `listening`: subscribes to the
    /// store's `Changed` signal and to its owner changes (the service leaving or coming back);
    /// such a session is read by one thread with `nextEvent`, which would also take the
    /// replies other threads wait for, so method calls go through a session that does not
    /// listen.
    init(listening: Bool) throws(GateKitError) {
        bus = try DBusLibrary.functions().pointee
        guard let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 else {
            throw GateKitError(.EPERM_PORTAL, "cannot connect to the session bus: $DBUS_SESSION_BUS_ADDRESS is not set (no desktop session)")
        }
        var error = DBusError()
        bus.dbus_error_init(&error)
        guard let c = bus.dbus_connection_open_private(address, &error) else {
            let reason = DBusSession.describe(&error, bus)
            throw GateKitError(.EPERM_PORTAL, "cannot connect to the session bus: \(reason)")
        }
        guard bus.dbus_bus_register(c, &error) != 0 else {
            let reason = DBusSession.describe(&error, bus)
            bus.dbus_connection_close(c)
            bus.dbus_connection_unref(c)
            throw GateKitError(.EPERM_PORTAL, "cannot connect to the session bus: \(reason)")
        }
        connection = c  // from here on, deinit closes and frees it, also when init throws
        // A bus that goes away must not exit the host process (libdbus's default).
        bus.dbus_connection_set_exit_on_disconnect(c, 0)
        // The bus delivers `Changed` only from the name's current owner and path; a signal sent
        // straight to this connection bypasses match rules, so `nextEvent` checks each one too.
        for rule in !listening ? [] : ["type='signal',sender='\(DBusSession.service)',path='\(DBusSession.path)',interface='\(DBusSession.interface)',member='Changed'",
                     "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(DBusSession.service)'"] {
            bus.dbus_bus_add_match(c, rule, &error)
            if bus.dbus_error_is_set(&error) != 0 {
                let reason = DBusSession.describe(&error, bus)
                throw GateKitError(.EPERM_PORTAL, "cannot subscribe to the permission store's signals: \(reason)")
            }
        }
    }

    /// The connection is freed only with the last reference: a thread still calling through
    /// this session (mapping a category while the provider is being replaced) then gets
    /// "disconnected", never a freed connection.
    deinit {
        close()
        bus.dbus_connection_unref(connection)
    }

    private let closeLock = Lock()
    private var closed = false
    func close() {
        closeLock.withLock {
            guard !closed else { return }
            closed = true
            bus.dbus_connection_close(connection)
        }
    }


    static func describe(_ error: inout DBusError, _ bus: gk_dbus) -> String {
        let message = gk_dbus_error_message(&error).map { String(cString: $0) } ?? "unknown error"
        bus.dbus_error_free(&error)
        return message
    }

    static let busName = "org.freedesktop.DBus"

    /// The unique name (":1.42") that owns the permission store's well-known name now, checked
    /// to be a connection of this user: only its signals are believed. Nil when nobody owns it.
    func serviceOwner() throws(GateKitError) -> String? {
        guard let owner = try callBus("GetNameOwner", DBusSession.service, absentWhen: "org.freedesktop.DBus.Error.NameHasNoOwner") else { return nil }
        guard let uid = try callBus("GetConnectionUnixUser", owner, absentWhen: nil, reading: "u") else {
            throw GateKitError(.EPERM_PORTAL, "the session bus did not say which user runs \(DBusSession.service)")
        }
        guard uid == String(geteuid()) else {
            throw GateKitError(.EPERM_PORTAL, "\(DBusSession.service) is owned by \(owner), a connection of user \(uid), not of this user (\(geteuid())): its answers are not believed")
        }
        return owner
    }

    /// One call to the bus daemon with a string argument; its string (or `reading` "u":
    /// uint32, as text) answer, or nil for the `absentWhen` error.
    private func callBus(_ method: String, _ argument: String, absentWhen: String?, reading: String = "s") throws(GateKitError) -> String? {
        guard let reply = try call(DBusSession.busName, "/org/freedesktop/DBus", DBusSession.busName, method, [argument],
                                   absentWhen: absentWhen, failure: "the session bus did not answer \(method)") else { return nil }
        defer { bus.dbus_message_unref(reply) }
        var it = DBusMessageIter()
        guard bus.dbus_message_iter_init(reply, &it) != 0 else { return nil }
        if reading == "u" {
            guard bus.dbus_message_iter_get_arg_type(&it) == Int32(UInt8(ascii: "u")) else { return nil }
            var value: UInt32 = 0
            bus.dbus_message_iter_get_basic(&it, &value)
            return String(value)
        }
        return string(&it)
    }

    /// `Lookup(table, id)`: each app's permission strings for that entry; empty when the
    /// store has no such table or entry.
    func lookup(table: String, id: String) throws(GateKitError) -> [String: [String]] {
        // xdg-permission-store answers NotFound for a table or entry nobody set yet.
        guard let reply = try call(DBusSession.service, DBusSession.path, DBusSession.interface, "Lookup", [table, id],
                                   absentWhen: "org.freedesktop.portal.Error.NotFound",
                                   failure: "the permission store did not answer Lookup(\(Quoted.text(table)), \(Quoted.text(id)))") else { return [:] }
        defer { bus.dbus_message_unref(reply) }
        var it = DBusMessageIter()
        guard bus.dbus_message_iter_init(reply, &it) != 0 else { return [:] }
        return permissions(&it)
    }

    /// A method call with string arguments, waited for: the reply (the caller unrefs it), or
    /// nil when the error is `absentWhen`; any other error is `.EPERM_PORTAL`.
    private func call(_ destination: String, _ path: String, _ interface: String, _ method: String, _ arguments: [String],
                      absentWhen: String?, failure: String) throws(GateKitError) -> OpaquePointer? {
        guard let message = bus.dbus_message_new_method_call(destination, path, interface, method) else {
            throw GateKitError(.ENOMEM, "libdbus could not allocate a message")
        }
        defer { bus.dbus_message_unref(message) }
        var args = DBusMessageIter()
        bus.dbus_message_iter_init_append(message, &args)
        for text in arguments {
            let ok = text.withCString { p -> Bool in
                var value: UnsafePointer<CChar>? = p
                return bus.dbus_message_iter_append_basic(&args, Int32(UInt8(ascii: "s")), &value) != 0
            }
            guard ok else { throw GateKitError(.ENOMEM, "libdbus could not build the \(method) call") }
        }
        var error = DBusError()
        bus.dbus_error_init(&error)
        guard let reply = bus.dbus_connection_send_with_reply_and_block(connection, message, DBusSession.callTimeoutMilliseconds, &error) else {
            let name = gk_dbus_error_name(&error).map { String(cString: $0) } ?? ""
            let reason = DBusSession.describe(&error, bus)
            if name == absentWhen { return nil }
            throw GateKitError(.EPERM_PORTAL, "\(failure): \(reason)")
        }
        return reply
    }

    /// Reads an `a{sas}` at the iterator (app id → permission strings).
    func permissions(_ it: inout DBusMessageIter) -> [String: [String]] {
        var out: [String: [String]] = [:]
        guard bus.dbus_message_iter_get_arg_type(&it) == Int32(UInt8(ascii: "a")) else { return out }
        var entries = DBusMessageIter()
        bus.dbus_message_iter_recurse(&it, &entries)
        while bus.dbus_message_iter_get_arg_type(&entries) == Int32(UInt8(ascii: "e")) {
            var entry = DBusMessageIter()
            bus.dbus_message_iter_recurse(&entries, &entry)
            if let app = string(&entry), bus.dbus_message_iter_next(&entry) != 0,
               bus.dbus_message_iter_get_arg_type(&entry) == Int32(UInt8(ascii: "a")) {
                var values = DBusMessageIter()
                bus.dbus_message_iter_recurse(&entry, &values)
                var list: [String] = []
                while let s = string(&values) {
                    list.append(s)
                    if bus.dbus_message_iter_next(&values) == 0 { break }
                }
                out[app] = list
            }
            if bus.dbus_message_iter_next(&entries) == 0 { break }
        }
        return out
    }

    /// The string at the iterator, or nil when it holds another type.
    func string(_ it: inout DBusMessageIter) -> String? {
        guard bus.dbus_message_iter_get_arg_type(&it) == Int32(UInt8(ascii: "s")) else { return nil }
        var value: UnsafePointer<CChar>? = nil
        bus.dbus_message_iter_get_basic(&it, &value)
        return value.map { String(cString: $0) }
    }

    /// A signal the listener acts on.
    enum Event {
        /// `Changed(table, id, deleted, data, permissions)`: the entry's new permissions, and the
        /// unique name that sent it (the listener believes only the service's owner).
        case changed(table: String, id: String, permissions: [String: [String]], sender: String)
        /// The permission store's owner changed (from the bus daemon itself): its new unique
        /// name, or nil when it left the bus.
        case service(owner: String?)
        /// Any other message (skipped).
        case other
    }

    /// Waits up to `milliseconds` for traffic; false once the bus connection is gone.
    func wait(milliseconds: Int32) -> Bool {
        bus.dbus_connection_read_write(connection, milliseconds) != 0
    }

    /// The next queued message as an event; nil when none is queued.
    func nextEvent() -> Event? {
        guard let message = bus.dbus_connection_pop_message(connection) else { return nil }
        defer { bus.dbus_message_unref(message) }
        var it = DBusMessageIter()
        let sender = bus.dbus_message_get_sender(message).map { String(cString: $0) } ?? ""
        let path = bus.dbus_message_get_path(message).map { String(cString: $0) } ?? ""
        // Signals of the wrong path or types are skipped, never read as an empty entry.
        if bus.dbus_message_is_signal(message, DBusSession.interface, "Changed") != 0, path == DBusSession.path,
           bus.dbus_message_has_signature(message, "ssbva{sas}") != 0, bus.dbus_message_iter_init(message, &it) != 0 {
            guard let table = string(&it), bus.dbus_message_iter_next(&it) != 0, let id = string(&it),
                  bus.dbus_message_iter_next(&it) != 0, bus.dbus_message_iter_next(&it) != 0, bus.dbus_message_iter_next(&it) != 0 else {
                return .other
            }
            return .changed(table: table, id: id, permissions: permissions(&it), sender: sender)
        }
        if bus.dbus_message_is_signal(message, DBusSession.busName, "NameOwnerChanged") != 0, sender == DBusSession.busName,
           bus.dbus_message_has_signature(message, "sss") != 0, bus.dbus_message_iter_init(message, &it) != 0 {
            guard string(&it) == DBusSession.service, bus.dbus_message_iter_next(&it) != 0, bus.dbus_message_iter_next(&it) != 0,
                  let newOwner = string(&it) else { return .other }
            return .service(owner: newOwner.isEmpty ? nil : newOwner)
        }
        return .other
    }
}
