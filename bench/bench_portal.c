/* The desktop permission store as the system state (make bench runs it inside
 * scripts/with-desktop-session.sh: a private session bus and the real xdg-permission-store).
 *
 * perm_state warm with the portal provider (answers cached, kept current by the store's Changed
 * signal) beside perm_state with no provider, and beside one raw libdbus Lookup round trip (what
 * asking the store per call would cost). Change latency: from a SetPermission call to the
 * callback that reports it, through the signal. */
#include "bench.h"

#include <dbus/dbus.h>
#include <gatekit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define BATCH 2000
#define SAMPLES 201
#define APP "org.example.Bench"

static volatile long sink;
static gatekit_store *plain, *portal;
static DBusConnection *bus;

static int batch_plain(void *p) {
    (void)p;
    for (int i = 0; i < BATCH; i++) sink += perm_state(plain, GATEKIT_PERM_CAMERA);
    return 0;
}

static int batch_portal(void *p) {
    (void)p;
    for (int i = 0; i < BATCH; i++) sink += perm_state(portal, GATEKIT_PERM_CAMERA);
    return 0;
}

static DBusMessage *call(const char *method, const char *table, const char *id, const char *permission) {
    DBusMessage *m = dbus_message_new_method_call("org.freedesktop.impl.portal.PermissionStore",
                                                  "/org/freedesktop/impl/portal/PermissionStore",
                                                  "org.freedesktop.impl.portal.PermissionStore", method);
    DBusMessageIter it, array;
    dbus_message_iter_init_append(m, &it);
    dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &table);
    if (permission) {
        dbus_bool_t create = TRUE;
        const char *app = APP;
        dbus_message_iter_append_basic(&it, DBUS_TYPE_BOOLEAN, &create);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &id);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &app);
        dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "s", &array);
        dbus_message_iter_append_basic(&array, DBUS_TYPE_STRING, &permission);
        dbus_message_iter_close_container(&it, &array);
    } else {
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &id);
    }
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(bus, m, 2000, &error);
    dbus_message_unref(m);
    if (!reply) { fprintf(stderr, "bench_portal: %s: %s\n", method, error.message); exit(1); }
    return reply;
}

static int one_lookup(void *p) {
    (void)p;
    dbus_message_unref(call("Lookup", "devices", "camera", NULL));
    return 0;
}

static _Atomic uint64_t heard_at;
static void on_change(void *payload, int category, int old_state, int new_state) {
    (void)payload; (void)category; (void)old_state; (void)new_state;
    atomic_store(&heard_at, bench_now_ns());
}

int main(void) {
    if (!getenv("DBUS_SESSION_BUS_ADDRESS")) {
        printf("\n### Desktop permission store\n\nSKIPPED: no session bus (run through `make bench`, which starts one)\n");
        return 0;
    }
    char folder[] = "/tmp/gatekit-bench-portal-XXXXXX";
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    char path[600];
    DBusError error;
    dbus_error_init(&error);
    bus = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (!bus) { fprintf(stderr, "bench_portal: %s\n", error.message); return 1; }
    dbus_message_unref(call("SetPermission", "devices", "camera", "yes"));
    snprintf(path, sizeof path, "%s/plain.sqlite", folder);
    if (gatekit_store_open(&plain, path, NULL) != 0) { fprintf(stderr, "%s\n", gatekit_last_error()); return 1; }
    snprintf(path, sizeof path, "%s/portal.sqlite", folder);
    if (gatekit_store_open(&portal, path, NULL) != 0 || perm_use_portal(portal, APP) != 0) {
        fprintf(stderr, "bench_portal: %s\n", gatekit_last_error());
        return 1;
    }
    if (perm_state(portal, GATEKIT_PERM_CAMERA) != GATEKIT_PERM_STATE_AUTHORIZED) { fprintf(stderr, "bench_portal: the portal's answer was not read\n"); return 1; }

    bench_stats none = bench_run(batch_plain, NULL, 10, SAMPLES);
    bench_stats warm = bench_run(batch_portal, NULL, 10, SAMPLES);
    bench_stats lookup = bench_run(one_lookup, NULL, 20, 2000);
    printf("\n### Desktop permission store: perm_state with the portal provider (private session bus, real xdg-permission-store)\n\n");
    printf("| measurement | median | p10 | p90 | samples |\n|---|---:|---:|---:|---:|\n");
    printf("| perm_state, no provider (reference) | %.1f ns | %.1f ns | %.1f ns | %d × %d |\n", none.median / BATCH, none.p10 / BATCH, none.p90 / BATCH, SAMPLES, BATCH);
    printf("| perm_state, portal provider, warm (cached; Changed keeps it current) | %.1f ns | %.1f ns | %.1f ns | %d × %d |\n", warm.median / BATCH, warm.p10 / BATCH, warm.p90 / BATCH, SAMPLES, BATCH);
    printf("| one raw libdbus Lookup round trip (reference) | %.1f µs | %.1f µs | %.1f µs | %d |\n", lookup.median / 1e3, lookup.p10 / 1e3, lookup.p90 / 1e3, lookup.runs);
    printf("| ratio warm portal perm_state / no provider | **%.2f×** | | | |\n", warm.median / none.median);
    printf("| ratio warm portal perm_state / one Lookup round trip | **%.4f×** | | | |\n", warm.median / BATCH / lookup.median);

    /* Change latency: SetPermission (alternating no/yes) until the callback has run. */
    int token = 0;
    if (perm_subscribe(&token, portal, on_change, NULL) != 0) { fprintf(stderr, "%s\n", gatekit_last_error()); return 1; }
    enum { CHANGES = 101 };
    uint64_t samples[CHANGES];
    for (int i = 0; i < CHANGES; i++) {
        atomic_store(&heard_at, 0);
        uint64_t t0 = bench_now_ns();
        dbus_message_unref(call("SetPermission", "devices", "camera", i % 2 ? "yes" : "no"));
        while (atomic_load(&heard_at) == 0) {
            if (bench_now_ns() - t0 > 5000000000ull) { fprintf(stderr, "bench_portal: no callback within 5 s\n"); return 1; }
            sched_yield();
        }
        samples[i] = atomic_load(&heard_at) - t0;
    }
    bench_stats latency = bench_summarize(samples, CHANGES);
    printf("| a change through the portal: SetPermission sent → the subscriber called (aim ≤ 100 ms) | %.2f ms | %.2f ms | %.2f ms | %d |\n",
           latency.median / 1e6, latency.p10 / 1e6, latency.p90 / 1e6, CHANGES);
    printf("\nReproduce: `make bench BENCH=portal`.\n");
    gatekit_store_close(portal);
    gatekit_store_close(plain);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "bench_portal: could not remove %s\n", folder);
    return 0;
}
