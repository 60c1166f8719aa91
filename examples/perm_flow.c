/* perm_flow.c: a complete pre-prompt flow (docs/permissions.md), compiled and run by the tests.
 *   cc -o perm_flow examples/perm_flow.c $(pkg-config --cflags --libs gatekit) */
#include <gatekit.h>
#include <stdio.h>

/* The host's UI: returns the user's answer on the pre-prompt, then, on "continue", shows the
 * system dialog and returns its result. Here: stand-ins. */
static int show_pre_prompt(int category) { (void)category; return GATEKIT_PERM_DECISION_AUTHORIZED; }

#define TRY(call) do { if ((call) < 0) { fprintf(stderr, "%s\n", gatekit_last_error()); return 1; } } while (0)

static void on_change(void *payload, int category, int old_state, int new_state) {
    (void)payload;
    printf("%s: %s -> %s\n", perm_category_name(category) ? perm_category_name(category) : "host",
           perm_state_name(old_state), perm_state_name(new_state));
}

int main(void) {
    gatekit_store *store = NULL;
    if (gatekit_store_open(&store, NULL, "org.example.app") != 0) {
        fprintf(stderr, "%s\n", gatekit_last_error());
        return 1;
    }
    /* At every launch (writes nothing when unchanged). */
    TRY(perm_set_usage_description(store, GATEKIT_PERM_CAMERA, "Scan QR codes on your screen."));
    TRY(perm_set_usage_description(store, GATEKIT_PERM_LOCATION_WHEN_IN_USE, "Show nearby stores."));
    TRY(perm_set_usage_description(store, GATEKIT_PERM_LOCATION_ALWAYS, "Remind you when you pass by."));
    TRY(perm_register_category(store, 1000000, "telemetry", "Send anonymous usage statistics."));

    int token = 0;
    TRY(perm_subscribe(&token, store, on_change, NULL));
    TRY(perm_watch_start(store, 250, 0));     /* other processes' changes, on the watcher thread */

    const int wanted[] = {GATEKIT_PERM_CAMERA, GATEKIT_PERM_LOCATION_WHEN_IN_USE,
                          GATEKIT_PERM_LOCATION_ALWAYS, 1000000};
    const size_t n = sizeof wanted / sizeof wanted[0];
    int next = 0, after = 0;
    while (perm_next(&next, store, wanted, n, after) == 0 && next != 0) {
        int rc = perm_record(store, next, show_pre_prompt(next));   /* durable on return */
        if (rc < 0) fprintf(stderr, "%s\n", gatekit_last_error());
        after = next;                          /* re-evaluated: never the same one twice */
    }
    if (perm_state(store, GATEKIT_PERM_CAMERA) == GATEKIT_PERM_STATE_AUTHORIZED) puts("camera on");

    if (perm_unsubscribe(store, token) < 0) fprintf(stderr, "%s\n", gatekit_last_error());
    gatekit_store_close(store);                /* also stops the watcher */
    return 0;
}
