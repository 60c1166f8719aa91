#ifndef GATEKIT_CDBUS_SHIM_H
#define GATEKIT_CDBUS_SHIM_H
/* libdbus-1 (Debian libdbus-1-dev) for the desktop permission store, loaded with dlopen on
 * the first perm_use_portal(): a host that never asks the desktop never loads it, and
 * libgatekit does not need libdbus installed to run. The prototypes come from libdbus's own
 * header, so every call is type-checked. libdbus rather than sd-bus or GDBus: it is the
 * reference implementation every desktop has, it needs no main loop (GDBus wants GLib's; GateKit
 * runs its own thread), and it is thread-safe once dbus_threads_init_default() ran. */
#include <dbus/dbus.h>
#include <dlfcn.h>
#include <stddef.h>

#define GK_DBUS_FUNCTIONS(X) \
    X(dbus_threads_init_default) X(dbus_error_init) X(dbus_error_free) X(dbus_error_is_set) \
    X(dbus_connection_open_private) X(dbus_bus_register) X(dbus_bus_add_match) X(dbus_bus_name_has_owner) \
    X(dbus_connection_set_exit_on_disconnect) X(dbus_connection_close) X(dbus_connection_unref) \
    X(dbus_connection_read_write) X(dbus_connection_pop_message) X(dbus_connection_get_is_connected) \
    X(dbus_connection_send_with_reply_and_block) X(dbus_connection_flush) \
    X(dbus_message_new_method_call) X(dbus_message_unref) X(dbus_message_is_signal) X(dbus_message_get_type) \
    X(dbus_message_get_error_name) X(dbus_message_get_sender) X(dbus_message_get_path) X(dbus_message_has_signature) \
    X(dbus_message_iter_init) X(dbus_message_iter_init_append) \
    X(dbus_message_iter_append_basic) X(dbus_message_iter_open_container) X(dbus_message_iter_close_container) \
    X(dbus_message_iter_get_arg_type) X(dbus_message_iter_get_basic) X(dbus_message_iter_recurse) \
    X(dbus_message_iter_next)

#define GK_DBUS_FIELD(name) __typeof__(name) *_Nonnull name;
/* Every libdbus function GateKit calls (non-null once gk_dbus_bind succeeded). */
typedef struct gk_dbus { GK_DBUS_FUNCTIONS(GK_DBUS_FIELD) } gk_dbus;
#undef GK_DBUS_FIELD

/* Fills `out` from an open libdbus handle; returns the name of the first missing symbol, or NULL. */
static inline const char *gk_dbus_bind(void *library, gk_dbus *out) {
    void *symbol;
#define GK_DBUS_BIND(name) \
    if (!(symbol = dlsym(library, #name))) return #name; \
    out->name = (__typeof__(name) *)symbol;
    GK_DBUS_FUNCTIONS(GK_DBUS_BIND)
#undef GK_DBUS_BIND
    return NULL;
}

/* DBusError's message, or NULL (a struct member Swift reads as a tuple-free pointer here). */
static inline const char *gk_dbus_error_message(const DBusError *error) { return error->message; }
static inline const char *gk_dbus_error_name(const DBusError *error) { return error->name; }

#endif
