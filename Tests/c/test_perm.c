/* Permission state from C: every function with valid, NULL and invalid arguments, the state
 * machine, sequencing, reset, history, the provider, callbacks (re-entrant, unsubscribing
 * inside), 16 threads at once, and a second process seen through perm_refresh and the watcher. */
#include "check.h"
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const int builtins[] = {
    GATEKIT_PERM_ACTIVITY, GATEKIT_PERM_HEALTH, GATEKIT_PERM_LOCATION_ALWAYS, GATEKIT_PERM_LOCATION_WHEN_IN_USE,
    GATEKIT_PERM_MICROPHONE, GATEKIT_PERM_PHOTO_LIBRARY, GATEKIT_PERM_CAMERA, GATEKIT_PERM_NOTIFICATION_LOCAL,
    GATEKIT_PERM_NOTIFICATION_REMOTE, GATEKIT_PERM_USER_NOTIFICATION, GATEKIT_PERM_SOCIAL_FACEBOOK,
    GATEKIT_PERM_SOCIAL_TWITTER, GATEKIT_PERM_SOCIAL_SINA_WEIBO, GATEKIT_PERM_SOCIAL_TENCENT_WEIBO,
    GATEKIT_PERM_EVENTS, GATEKIT_PERM_REMINDERS, GATEKIT_PERM_CONTACTS, GATEKIT_PERM_SIRI,
    GATEKIT_PERM_SPEECH_RECOGNITION, GATEKIT_PERM_MUSIC_LIBRARY,
};
#define NBUILTIN ((int)(sizeof builtins / sizeof builtins[0]))

static char store_path[512];

static gatekit_store *open_store(void) {
    gatekit_store *s = NULL;
    CHECK_RC(check_store_open(&s, store_path), 0);
    return s;
}

static void describe_all(gatekit_store *s) {
    for (int i = 0; i < NBUILTIN; i++) CHECK_RC(perm_set_usage_description(s, builtins[i], "GateKit test needs it"), 0);
}

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* ---- names, constants, static functions ---- */
static void test_static(void) {
    CHECK_STR(perm_category_name(GATEKIT_PERM_CAMERA), "camera");
    CHECK_STR(perm_category_name(GATEKIT_PERM_LOCATION_ALWAYS), "location-always");
    CHECK_STR(perm_category_name(GATEKIT_PERM_MUSIC_LIBRARY), "music-library");
    CHECK(perm_category_name(0) == NULL);
    CHECK(perm_category_name(5000) == NULL);
    CHECK(perm_category_name(-1) == NULL);
    CHECK(perm_category_name(INT_MAX) == NULL);
    for (int i = 0; i < NBUILTIN; i++) {
        const char *name = perm_category_name(builtins[i]);
        CHECK(name != NULL);
        if (name) CHECK_RC(perm_category_from_name(NULL, name), builtins[i]);
    }
    CHECK_RC(perm_category_from_name(NULL, NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_category_from_name(NULL, "Camera"), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_category_from_name(NULL, ""), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_category_from_name(NULL, "\xff\xfe"), GATEKIT_EINVAL);

    CHECK_STR(perm_state_name(GATEKIT_PERM_STATE_UNKNOWN), "unknown");
    CHECK_STR(perm_state_name(GATEKIT_PERM_STATE_ASK_AGAIN), "ask-again");
    CHECK_STR(perm_state_name(GATEKIT_PERM_STATE_AUTHORIZED), "authorized");
    CHECK_STR(perm_state_name(GATEKIT_PERM_STATE_DENIED), "denied");
    CHECK_STR(perm_state_name(GATEKIT_PERM_STATE_DO_NOT_ASK), "do-not-ask");
    CHECK_STR(perm_state_name(GATEKIT_PERM_STATE_UNSUPPORTED), "unsupported");
    CHECK(perm_state_name(1) == NULL);

    CHECK_RC(perm_allows_prompt(GATEKIT_PERM_STATE_UNKNOWN), 1);
    CHECK_RC(perm_allows_prompt(GATEKIT_PERM_STATE_ASK_AGAIN), 1);
    CHECK_RC(perm_allows_prompt(GATEKIT_PERM_STATE_AUTHORIZED), 0);
    CHECK_RC(perm_allows_prompt(GATEKIT_PERM_STATE_DENIED), 0);
    CHECK_RC(perm_allows_prompt(GATEKIT_PERM_STATE_DO_NOT_ASK), 0);
    CHECK_RC(perm_allows_prompt(GATEKIT_PERM_STATE_UNSUPPORTED), 0);
    CHECK_RC(perm_allows_prompt(-1), 0);
    CHECK_RC(perm_allows_prompt(404), 0);

    /* Every permission code is distinct and has its own text. */
    int codes[] = {GATEKIT_EPERM_CATEGORY, GATEKIT_EPERM_RETIRED, GATEKIT_EPERM_DECISION, GATEKIT_EPERM_NOT_PROMPTABLE,
                   GATEKIT_EPERM_BLOCKED, GATEKIT_EPERM_NO_USAGE, GATEKIT_EPERM_CONFLICT, GATEKIT_EPERM_PROVIDER,
                   GATEKIT_EPERM_REENTRANT, GATEKIT_EPERM_TOKEN, GATEKIT_EPERM_WATCHING};
    int n = (int)(sizeof codes / sizeof codes[0]);
    for (int i = 0; i < n; i++) {
        CHECK(codes[i] <= -200 && codes[i] >= -299);
        CHECK(strcmp(gatekit_strerror(codes[i]), "unknown error") != 0);
        for (int j = i + 1; j < n; j++) {
            CHECK(codes[i] != codes[j]);
            CHECK(strcmp(gatekit_strerror(codes[i]), gatekit_strerror(codes[j])) != 0);
        }
    }
}

/* ---- NULL and invalid arguments on every function ---- */
static void noop_changed(void *p, int c, int o, int n) { (void)p; (void)c; (void)o; (void)n; }
static int noop_provider(void *p, int c) { (void)p; (void)c; return 0; }

static void test_invalid(gatekit_store *s) {
    int out = 0, token = 0;
    size_t count = 0;
    char *json = NULL;
    int list[] = {GATEKIT_PERM_CAMERA};

    CHECK_RC(perm_state(NULL, GATEKIT_PERM_CAMERA), GATEKIT_EINVAL);
    CHECK_RC(perm_record(NULL, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_DENIED), GATEKIT_EINVAL);
    CHECK_RC(perm_reset(NULL, GATEKIT_PERM_ALL), GATEKIT_EINVAL);
    CHECK_RC(perm_refresh(NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_set_system_provider(NULL, noop_provider, NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_set_usage_description(NULL, GATEKIT_PERM_CAMERA, "x"), GATEKIT_EINVAL);
    CHECK_RC(perm_set_usage_description(s, GATEKIT_PERM_CAMERA, NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_set_usage_description(s, GATEKIT_PERM_CAMERA, ""), GATEKIT_EINVAL);
    CHECK_RC(perm_set_usage_description(s, 0, "x"), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_set_usage_description(s, 5000, "x"), GATEKIT_EPERM_RETIRED);
    CHECK_RC(perm_register_category(NULL, 1000000, "telemetry", "x"), GATEKIT_EINVAL);
    CHECK_RC(perm_register_category(s, 1000000, NULL, "x"), GATEKIT_EINVAL);
    CHECK_RC(perm_register_category(s, 1000000, "telemetry", NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_pending(&out, NULL, s, list, 1), GATEKIT_EINVAL);
    CHECK_RC(perm_pending(NULL, &count, s, list, 1), GATEKIT_EINVAL);
    CHECK_RC(perm_pending(&out, &count, s, NULL, 1), GATEKIT_EINVAL);
    CHECK_RC(perm_pending(&out, &count, NULL, list, 1), GATEKIT_EINVAL);
    CHECK_RC(perm_pending(&out, &count, s, list, (size_t)-1), GATEKIT_ETOOLARGE);
    CHECK_RC(perm_pending(&out, &count, s, list, 65537), GATEKIT_ETOOLARGE);
    count = 7;
    CHECK_RC(perm_pending(NULL, &count, s, NULL, 0), 0);
    CHECK(count == 0);
    CHECK_RC(perm_next(NULL, s, list, 1, 0), GATEKIT_EINVAL);
    CHECK_RC(perm_next(&out, s, NULL, 1, 0), GATEKIT_EINVAL);
    CHECK_RC(perm_next(&out, NULL, list, 1, 0), GATEKIT_EINVAL);
    CHECK_RC(perm_history(NULL, s, GATEKIT_PERM_ALL), GATEKIT_EINVAL);
    CHECK_RC(perm_history(&json, NULL, GATEKIT_PERM_ALL), GATEKIT_EINVAL);
    CHECK(json == NULL);
    CHECK_RC(perm_history(&json, s, 0), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_history(&json, s, 8100), GATEKIT_EPERM_RETIRED);
    CHECK_RC(perm_list(NULL, s), GATEKIT_EINVAL);
    CHECK_RC(perm_list(&json, NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_subscribe(NULL, s, noop_changed, NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_subscribe(&token, NULL, noop_changed, NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_subscribe(&token, s, NULL, NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_unsubscribe(NULL, 1), GATEKIT_EINVAL);
    CHECK_RC(perm_unsubscribe(s, 12345), GATEKIT_EPERM_TOKEN);
    CHECK_RC(perm_unsubscribe(s, 0), GATEKIT_EPERM_TOKEN);
    CHECK_RC(perm_watch_start(NULL, 10, 0), GATEKIT_EINVAL);
    CHECK_RC(perm_watch_start(s, 0, 0), GATEKIT_EINVAL);
    CHECK_RC(perm_watch_start(s, -5, 0), GATEKIT_EINVAL);
    CHECK_RC(perm_watch_start(s, 10, 8), GATEKIT_EINVAL);
    CHECK_RC(perm_watch_stop(NULL), GATEKIT_EINVAL);
    CHECK_RC(perm_watch_stop(s), 0);
    CHECK_RC(perm_category_from_name(s, "nothing-here"), GATEKIT_EPERM_CATEGORY);

    /* Invalid categories: each reason its own code, with a precise detail. */
    CHECK_RC(perm_state(s, 0), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_state(s, -7), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_state(s, 1234), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_state(s, INT_MIN), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_state(s, 5000), GATEKIT_EPERM_RETIRED);
    CHECK(strstr(gatekit_last_error(), "retired") != NULL);
    CHECK_RC(perm_state(s, 8100), GATEKIT_EPERM_RETIRED);
    CHECK_RC(perm_state(s, 1000042), GATEKIT_EPERM_CATEGORY);
    CHECK(strstr(gatekit_last_error(), "not registered") != NULL);
    CHECK_RC(perm_state(s, GATEKIT_PERM_ALL), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, 0), GATEKIT_EPERM_DECISION);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, 5), GATEKIT_EPERM_DECISION);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, -1), GATEKIT_EPERM_DECISION);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_STATE_DENIED), GATEKIT_EPERM_DECISION);
    CHECK_RC(perm_record(s, 5000, GATEKIT_PERM_DECISION_DENIED), GATEKIT_EPERM_RETIRED);
    CHECK_RC(perm_record(s, 4242, GATEKIT_PERM_DECISION_DENIED), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_reset(s, 5000), GATEKIT_EPERM_RETIRED);
    CHECK_RC(perm_reset(s, 0), GATEKIT_EPERM_CATEGORY);
}

/* ---- usage descriptions: required for every category, and the error names it ---- */
static void test_usage_descriptions(gatekit_store *s) {
    for (int i = 0; i < NBUILTIN; i++) {
        int c = builtins[i], out = 0;
        size_t n = 0;
        CHECK_RC(perm_record(s, c, GATEKIT_PERM_DECISION_ASK_LATER), GATEKIT_EPERM_NO_USAGE);
        CHECK(strstr(gatekit_last_error(), perm_category_name(c)) != NULL);
        CHECK_RC(perm_pending(&out, &n, s, &c, 1), GATEKIT_EPERM_NO_USAGE);
        CHECK(strstr(gatekit_last_error(), perm_category_name(c)) != NULL);
        CHECK_RC(perm_next(&out, s, &c, 1, 0), GATEKIT_EPERM_NO_USAGE);
        CHECK_RC(perm_state(s, c), GATEKIT_PERM_STATE_UNKNOWN); /* reading needs none */
    }
}

/* ---- the state machine table ---- */
static void test_state_machine(gatekit_store *s) {
    const int decisions[] = {GATEKIT_PERM_DECISION_ASK_LATER, GATEKIT_PERM_DECISION_DONT_ASK,
                             GATEKIT_PERM_DECISION_AUTHORIZED, GATEKIT_PERM_DECISION_DENIED};
    const int results[] = {GATEKIT_PERM_STATE_ASK_AGAIN, GATEKIT_PERM_STATE_DO_NOT_ASK,
                           GATEKIT_PERM_STATE_AUTHORIZED, GATEKIT_PERM_STATE_DENIED};
    int c = GATEKIT_PERM_MICROPHONE;
    for (int from = 0; from < 2; from++) {          /* from unknown, then from ask again */
        for (int d = 0; d < 4; d++) {
            CHECK_RC(perm_reset(s, c), 0);
            if (from == 1) CHECK_RC(perm_record(s, c, GATEKIT_PERM_DECISION_ASK_LATER), 0);
            CHECK_RC(perm_state(s, c), from ? GATEKIT_PERM_STATE_ASK_AGAIN : GATEKIT_PERM_STATE_UNKNOWN);
            CHECK_RC(perm_record(s, c, decisions[d]), 0);
            CHECK_RC(perm_state(s, c), results[d]);
            if (d >= 1) { /* a final state refuses every decision */
                for (int e = 0; e < 4; e++) {
                    CHECK_RC(perm_record(s, c, decisions[e]), GATEKIT_EPERM_NOT_PROMPTABLE);
                    CHECK_RC(perm_state(s, c), results[d]);
                }
            }
        }
    }
    CHECK_RC(perm_reset(s, c), 0);
    CHECK_RC(perm_state(s, c), GATEKIT_PERM_STATE_UNKNOWN);
}

/* ---- sequencing: pending, next, skips, the original's index bug ---- */
static void test_sequencing(gatekit_store *s) {
    int seq[] = {GATEKIT_PERM_CAMERA, GATEKIT_PERM_LOCATION_WHEN_IN_USE, GATEKIT_PERM_CAMERA,
                 GATEKIT_PERM_LOCATION_ALWAYS, GATEKIT_PERM_MICROPHONE, GATEKIT_PERM_CONTACTS};
    int n = 6, out[6] = {0};
    size_t count = 0;
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CONTACTS, GATEKIT_PERM_DECISION_DONT_ASK), 0);
    CHECK_RC(perm_pending(out, &count, s, seq, (size_t)n), 0);
    CHECK(count == 4); /* camera once, contacts skipped (do not ask) */
    CHECK(out[0] == GATEKIT_PERM_CAMERA && out[1] == GATEKIT_PERM_LOCATION_WHEN_IN_USE &&
          out[2] == GATEKIT_PERM_LOCATION_ALWAYS && out[3] == GATEKIT_PERM_MICROPHONE);

    /* The walk: the host answers each screen with the next decision; denying when-in-use
     * must skip location-always; no category may come twice. */
    int seen[16], nseen = 0, after = 0, next = 0;
    const int answers[] = {GATEKIT_PERM_DECISION_ASK_LATER, GATEKIT_PERM_DECISION_DENIED,
                           GATEKIT_PERM_DECISION_AUTHORIZED, GATEKIT_PERM_DECISION_DONT_ASK};
    for (int step = 0; step < 10; step++) {
        CHECK_RC(perm_next(&next, s, seq, (size_t)n, after), 0);
        if (next == 0) break;
        for (int i = 0; i < nseen; i++) CHECK(seen[i] != next);
        CHECK_RC(perm_allows_prompt(perm_state(s, next)), 1);
        seen[nseen++] = next;
        CHECK_RC(perm_record(s, next, answers[step % 4]), 0);
        after = next;
    }
    CHECK(nseen == 3);
    CHECK(seen[0] == GATEKIT_PERM_CAMERA && seen[1] == GATEKIT_PERM_LOCATION_WHEN_IN_USE && seen[2] == GATEKIT_PERM_MICROPHONE);
    CHECK_RC(perm_state(s, GATEKIT_PERM_LOCATION_ALWAYS), GATEKIT_PERM_STATE_UNKNOWN);
    CHECK_RC(perm_record(s, GATEKIT_PERM_LOCATION_ALWAYS, GATEKIT_PERM_DECISION_AUTHORIZED), GATEKIT_EPERM_BLOCKED);
    CHECK(strstr(gatekit_last_error(), "location-when-in-use") != NULL);
    /* In place (out == categories) is allowed. */
    int inplace[] = {GATEKIT_PERM_LOCATION_ALWAYS, GATEKIT_PERM_CAMERA, GATEKIT_PERM_MICROPHONE};
    CHECK_RC(perm_pending(inplace, &count, s, inplace, 3), 0);
    CHECK(count == 1 && inplace[0] == GATEKIT_PERM_CAMERA); /* camera: ask again */
    CHECK_RC(perm_next(&next, s, seq, (size_t)n, GATEKIT_PERM_HEALTH), GATEKIT_EINVAL);
    CHECK_RC(perm_next(&next, s, seq, (size_t)n, GATEKIT_PERM_CONTACTS), 0);
    CHECK(next == 0);
    int bad[] = {GATEKIT_PERM_CAMERA, 5000};
    CHECK_RC(perm_pending(out, &count, s, bad, 2), GATEKIT_EPERM_RETIRED);
    CHECK(count == 0);
}

/* ---- reset one and all, history ---- */
static void test_reset_and_history(gatekit_store *s) {
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_DONT_ASK), 0);
    CHECK_RC(perm_record(s, GATEKIT_PERM_EVENTS, GATEKIT_PERM_DECISION_DENIED), 0);
    CHECK_RC(perm_record(s, GATEKIT_PERM_SIRI, GATEKIT_PERM_DECISION_AUTHORIZED), 0);
    CHECK_RC(perm_reset(s, GATEKIT_PERM_CAMERA), 0);
    CHECK_RC(perm_state(s, GATEKIT_PERM_CAMERA), GATEKIT_PERM_STATE_UNKNOWN);
    CHECK_RC(perm_state(s, GATEKIT_PERM_EVENTS), GATEKIT_PERM_STATE_DENIED);
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
    CHECK_RC(perm_state(s, GATEKIT_PERM_EVENTS), GATEKIT_PERM_STATE_UNKNOWN);
    CHECK_RC(perm_state(s, GATEKIT_PERM_SIRI), GATEKIT_PERM_STATE_UNKNOWN);

    char *json = NULL;
    CHECK_RC(perm_history(&json, s, GATEKIT_PERM_CAMERA), 0);
    CHECK(json != NULL);
    if (json) {
        const char *dont = strstr(json, "\"from\":0,\"from_state\":\"unknown\",\"to\":406,\"to_state\":\"do-not-ask\",\"source\":\"user\"");
        const char *reset = strstr(json, "\"from\":406,\"from_state\":\"do-not-ask\",\"to\":0,\"to_state\":\"unknown\",\"source\":\"reset\"");
        CHECK(dont != NULL && reset != NULL && dont < reset);
        CHECK(strstr(json, "\"name\":\"camera\"") != NULL);
        CHECK(strstr(json, "\"category\":8200") == NULL);
        CHECK(strstr(json, "\"at\":\"20") != NULL);
        gatekit_free(json);
    }
    CHECK_RC(perm_history(&json, s, GATEKIT_PERM_ALL), 0);
    if (json) {
        CHECK(strstr(json, "\"category\":8200,\"name\":\"events\",\"from\":0,\"from_state\":\"unknown\",\"to\":403,\"to_state\":\"denied\",\"source\":\"system\"") != NULL);
        CHECK(strstr(json, "\"category\":9000,\"name\":\"siri\",\"from\":200,\"from_state\":\"authorized\",\"to\":0,\"to_state\":\"unknown\",\"source\":\"reset\"") != NULL);
        gatekit_free(json);
    }
    CHECK_RC(perm_list(&json, s), 0);
    if (json) {
        CHECK(strstr(json, "\"category\":5100,\"name\":\"camera\",\"state\":0") != NULL);
        CHECK(strstr(json, "\"usage_description\":\"GateKit test needs it\"") != NULL);
        gatekit_free(json);
    }
}

/* ---- host categories ---- */
static void test_host_categories(gatekit_store *s) {
    CHECK_RC(perm_register_category(s, 1000000, "telemetry", "Send anonymous usage statistics"), 0);
    CHECK_RC(perm_register_category(s, 1000000, "telemetry", "Send anonymous usage statistics"), 0);
    CHECK_RC(perm_register_category(s, 1000000, "telemetry", "Updated text"), 0);
    CHECK_RC(perm_register_category(s, 1000000, "crash-reports", "x"), GATEKIT_EPERM_CONFLICT);
    CHECK(strstr(gatekit_last_error(), "telemetry") != NULL);
    CHECK_RC(perm_register_category(s, 1000001, "telemetry", "x"), GATEKIT_EPERM_CONFLICT);
    CHECK_RC(perm_register_category(s, GATEKIT_PERM_CAMERA, "my-camera", "x"), GATEKIT_EPERM_CONFLICT);
    CHECK_RC(perm_register_category(s, 1000002, "camera", "x"), GATEKIT_EPERM_CONFLICT);
    CHECK_RC(perm_register_category(s, 5000, "old-photos", "x"), GATEKIT_EPERM_RETIRED);
    CHECK_RC(perm_register_category(s, 999999, "almost", "x"), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_register_category(s, 0, "zero", "x"), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_register_category(s, -3, "neg", "x"), GATEKIT_EPERM_CATEGORY);
    CHECK_RC(perm_register_category(s, 1000003, "Bad Name", "x"), GATEKIT_EINVAL);
    CHECK_RC(perm_register_category(s, 1000003, "", "x"), GATEKIT_EINVAL);
    CHECK_RC(perm_register_category(s, 1000003, "ok-name", ""), GATEKIT_EINVAL);
    CHECK_RC(perm_register_category(s, INT_MAX, "screen-capture", "Record the screen"), 0);
    CHECK_RC(perm_category_from_name(s, "telemetry"), 1000000);
    CHECK_RC(perm_category_from_name(s, "screen-capture"), INT_MAX);
    CHECK_RC(perm_category_from_name(NULL, "telemetry"), GATEKIT_EPERM_CATEGORY);
    CHECK(perm_category_name(1000000) == NULL);
    CHECK_RC(perm_state(s, 1000000), GATEKIT_PERM_STATE_UNKNOWN);
    CHECK_RC(perm_record(s, 1000000, GATEKIT_PERM_DECISION_DONT_ASK), 0);
    CHECK_RC(perm_state(s, 1000000), GATEKIT_PERM_STATE_DO_NOT_ASK);
    char *json = NULL;
    CHECK_RC(perm_history(&json, s, 1000000), 0);
    if (json) {
        CHECK(strstr(json, "\"name\":\"telemetry\"") != NULL);
        gatekit_free(json);
    }
    CHECK_RC(perm_list(&json, s), 0);
    if (json) {
        CHECK(strstr(json, "\"category\":1000000,\"name\":\"telemetry\",\"state\":406") != NULL);
        CHECK(strstr(json, "\"usage_description\":\"Updated text\",\"host\":true") != NULL);
        gatekit_free(json);
    }
    CHECK_RC(perm_reset(s, 1000000), 0);
}

/* ---- the provider ---- */
struct provider_state { int answer; int calls; gatekit_store *store; int reentry_rc; };

static int fixed_provider(void *payload, int category) {
    struct provider_state *p = payload;
    (void)category;
    __atomic_add_fetch(&p->calls, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&p->answer, __ATOMIC_SEQ_CST);
}

static int reentrant_provider(void *payload, int category) {
    struct provider_state *p = payload;
    p->reentry_rc = perm_state(p->store, category);
    int r2 = perm_record(p->store, category, GATEKIT_PERM_DECISION_DENIED);
    if (r2 != GATEKIT_EPERM_REENTRANT) p->reentry_rc = 1;
    return 0;
}

/* The desktop portal's errors without a desktop (tests/test_portal.py runs the real one). */
static void test_portal_without_a_desktop(gatekit_store *s) {
    const char *saved = getenv("DBUS_SESSION_BUS_ADDRESS");
    char *copy = saved ? strdup(saved) : NULL;
    CHECK_RC(perm_portal_status(s), GATEKIT_EPERM_PORTAL);  /* not this handle's provider */
    CHECK(strstr(gatekit_last_error(), "perm_use_portal first") != NULL);
    CHECK_RC(perm_portal_map(s, GATEKIT_PERM_CAMERA, "devices", "camera"), GATEKIT_EPERM_PORTAL);
    unsetenv("DBUS_SESSION_BUS_ADDRESS");
    CHECK_RC(perm_use_portal(s, "org.example.App"), GATEKIT_EPERM_PORTAL);
    CHECK(strstr(gatekit_last_error(), "DBUS_SESSION_BUS_ADDRESS is not set") != NULL);
    setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/gatekit-test-bus", 1);
    CHECK_RC(perm_use_portal(s, "org.example.App"), GATEKIT_EPERM_PORTAL);
    CHECK(strstr(gatekit_last_error(), "cannot connect to the session bus") != NULL);
    CHECK_RC(perm_use_portal(s, ""), GATEKIT_EINVAL);
    if (access("/.flatpak-info", F_OK) != 0) CHECK_RC(perm_use_portal(s, NULL), GATEKIT_EINVAL);  /* no sandbox: an id is required */
    if (copy) setenv("DBUS_SESSION_BUS_ADDRESS", copy, 1);
    else unsetenv("DBUS_SESSION_BUS_ADDRESS");
    free(copy);
    /* Nothing was installed: the stored state still answers. */
    CHECK_RC(perm_portal_status(s), GATEKIT_EPERM_PORTAL);
}

static void test_provider(gatekit_store *s) {
    struct provider_state p = {GATEKIT_PERM_STATE_AUTHORIZED, 0, s, 0};
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CONTACTS, GATEKIT_PERM_DECISION_DONT_ASK), 0);
    CHECK_RC(perm_set_system_provider(s, fixed_provider, &p), 0);
    const int answers[] = {GATEKIT_PERM_STATE_AUTHORIZED, GATEKIT_PERM_STATE_DENIED, GATEKIT_PERM_STATE_UNSUPPORTED};
    for (int a = 0; a < 3; a++) {
        __atomic_store_n(&p.answer, answers[a], __ATOMIC_SEQ_CST);
        for (int i = 0; i < NBUILTIN; i++) CHECK_RC(perm_state(s, builtins[i]), answers[a]);
        CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_ASK_LATER), GATEKIT_EPERM_NOT_PROMPTABLE);
    }
    /* Not determined: the stored state decides, for every category (contacts included). */
    __atomic_store_n(&p.answer, GATEKIT_PERM_STATE_UNKNOWN, __ATOMIC_SEQ_CST);
    CHECK_RC(perm_state(s, GATEKIT_PERM_CONTACTS), GATEKIT_PERM_STATE_DO_NOT_ASK);
    CHECK_RC(perm_state(s, GATEKIT_PERM_CAMERA), GATEKIT_PERM_STATE_UNKNOWN);
    __atomic_store_n(&p.answer, -1, __ATOMIC_SEQ_CST); /* "could not tell" */
    CHECK_RC(perm_state(s, GATEKIT_PERM_CONTACTS), GATEKIT_PERM_STATE_DO_NOT_ASK);
    /* An answer that is no provider state is an error naming the category. */
    __atomic_store_n(&p.answer, GATEKIT_PERM_STATE_DO_NOT_ASK, __ATOMIC_SEQ_CST);
    CHECK_RC(perm_state(s, GATEKIT_PERM_CAMERA), GATEKIT_EPERM_PROVIDER);
    CHECK(strstr(gatekit_last_error(), "camera") != NULL);
    __atomic_store_n(&p.answer, 7, __ATOMIC_SEQ_CST);
    CHECK_RC(perm_refresh(s), GATEKIT_EPERM_PROVIDER);
    /* A dialog result the system already reports is accepted. */
    __atomic_store_n(&p.answer, GATEKIT_PERM_STATE_DENIED, __ATOMIC_SEQ_CST);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_DENIED), 0);
    CHECK_RC(perm_record(s, GATEKIT_PERM_MICROPHONE, GATEKIT_PERM_DECISION_AUTHORIZED), GATEKIT_EPERM_NOT_PROMPTABLE);
    CHECK(p.calls > 0);
    /* Removing it: the stored states decide again. */
    CHECK_RC(perm_set_system_provider(s, NULL, NULL), 0);
    CHECK_RC(perm_state(s, GATEKIT_PERM_CAMERA), GATEKIT_PERM_STATE_DENIED);
    CHECK_RC(perm_state(s, GATEKIT_PERM_MICROPHONE), GATEKIT_PERM_STATE_UNKNOWN);
    /* A provider calling back in gets GATEKIT_EPERM_REENTRANT, never a deadlock. */
    struct provider_state r = {0, 0, s, 0};
    CHECK_RC(perm_set_system_provider(s, reentrant_provider, &r), 0);
    CHECK_RC(perm_state(s, GATEKIT_PERM_HEALTH), GATEKIT_PERM_STATE_UNKNOWN);
    CHECK_RC(r.reentry_rc, GATEKIT_EPERM_REENTRANT);
    CHECK_RC(perm_set_system_provider(s, NULL, NULL), 0);
    /* Provider history: the answers it gave were appended (source "provider"). */
    char *json = NULL;
    CHECK_RC(perm_history(&json, s, GATEKIT_PERM_ACTIVITY), 0);
    if (json) {
        CHECK(strstr(json, "\"source\":\"provider\"") != NULL);
        gatekit_free(json);
    }
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
}

/* ---- callbacks ---- */
struct changes { int n; int claimed; int category[64]; int old_state[64]; int new_state[64]; gatekit_store *store; int token;
                 int reentry_state; int unsub_rc; pthread_t thread[64]; };

/* Claims a slot, fills it, then publishes it through n (a waiting thread reads n first). */
static void record_change(void *payload, int category, int old_state, int new_state) {
    struct changes *c = payload;
    int i = __atomic_fetch_add(&c->claimed, 1, __ATOMIC_SEQ_CST);
    if (i < 64) { c->category[i] = category; c->old_state[i] = old_state; c->new_state[i] = new_state; c->thread[i] = pthread_self(); }
    __atomic_add_fetch(&c->n, 1, __ATOMIC_SEQ_CST);
}

static void reentering_change(void *payload, int category, int old_state, int new_state) {
    struct changes *c = payload;
    record_change(payload, category, old_state, new_state);
    /* Calls back into the library, including a write that notifies again. */
    c->reentry_state = perm_state(c->store, category);
    if (category == GATEKIT_PERM_CAMERA && new_state == GATEKIT_PERM_STATE_ASK_AGAIN)
        c->unsub_rc = perm_record(c->store, GATEKIT_PERM_MICROPHONE, GATEKIT_PERM_DECISION_ASK_LATER);
    char *json = NULL;
    if (perm_history(&json, c->store, category) == 0) gatekit_free(json);
}

static void unsubscribing_change(void *payload, int category, int old_state, int new_state) {
    struct changes *c = payload;
    record_change(payload, category, old_state, new_state);
    c->unsub_rc = perm_unsubscribe(c->store, c->token);
}

static void test_callbacks(gatekit_store *s) {
    struct changes a = {0}, b = {0}, u = {0};
    a.store = b.store = u.store = s;
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
    CHECK_RC(perm_subscribe(&a.token, s, reentering_change, &a), 0);
    CHECK_RC(perm_subscribe(&u.token, s, unsubscribing_change, &u), 0);
    CHECK_RC(perm_subscribe(&b.token, s, record_change, &b), 0);
    CHECK(a.token > 0 && u.token > 0 && b.token > 0 && a.token != b.token);

    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_ASK_LATER), 0);
    /* camera 0→100, then microphone 0→100 recorded from inside the callback. */
    CHECK_RC(a.n, 2);
    CHECK(a.category[0] == GATEKIT_PERM_CAMERA && a.old_state[0] == 0 && a.new_state[0] == GATEKIT_PERM_STATE_ASK_AGAIN);
    CHECK(a.category[1] == GATEKIT_PERM_MICROPHONE && a.new_state[1] == GATEKIT_PERM_STATE_ASK_AGAIN);
    CHECK(pthread_equal(a.thread[0], pthread_self()));
    CHECK(a.reentry_state == GATEKIT_PERM_STATE_ASK_AGAIN);
    CHECK_RC(a.unsub_rc, 0); /* the record made from inside the callback */
    CHECK_RC(b.n, 2);
    CHECK_RC(u.n, 1);           /* unsubscribed itself inside its first call */
    CHECK_RC(u.unsub_rc, 0);
    CHECK_RC(perm_unsubscribe(s, u.token), GATEKIT_EPERM_TOKEN);

    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_DENIED), 0);
    CHECK_RC(b.n, 3);
    CHECK(b.old_state[2] == GATEKIT_PERM_STATE_ASK_AGAIN && b.new_state[2] == GATEKIT_PERM_STATE_DENIED);
    /* Refused records and no-op resets notify nothing. */
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_DENIED), GATEKIT_EPERM_NOT_PROMPTABLE);
    CHECK_RC(perm_reset(s, GATEKIT_PERM_HEALTH), 0);
    CHECK_RC(b.n, 3);
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
    CHECK_RC(b.n, 5);           /* camera and microphone back to unknown */

    /* A provider change is detected by perm_refresh. */
    struct provider_state p = {GATEKIT_PERM_STATE_UNKNOWN, 0, s, 0};
    CHECK_RC(perm_set_system_provider(s, fixed_provider, &p), 0);
    CHECK_RC(b.n, 5);
    __atomic_store_n(&p.answer, GATEKIT_PERM_STATE_UNSUPPORTED, __ATOMIC_SEQ_CST);
    const int known = NBUILTIN + 2; /* and the two host categories registered above */
    CHECK_RC(perm_refresh(s), 0);
    CHECK_RC(b.n, 5 + known);
    CHECK(b.new_state[5] == GATEKIT_PERM_STATE_UNSUPPORTED);
    CHECK_RC(perm_refresh(s), 0);
    CHECK_RC(b.n, 5 + known); /* nothing new */
    CHECK_RC(perm_set_system_provider(s, NULL, NULL), 0); /* back to unknown: reported */
    CHECK_RC(b.n, 5 + 2 * known);

    CHECK_RC(perm_unsubscribe(s, a.token), 0);
    CHECK_RC(perm_unsubscribe(s, b.token), 0);
    CHECK_RC(perm_record(s, GATEKIT_PERM_CAMERA, GATEKIT_PERM_DECISION_ASK_LATER), 0);
    CHECK_RC(b.n, 5 + 2 * known);
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
}

/* ---- 16 threads recording and reading at once ---- */
#define THREADS 16
#define ROUNDS 25
struct worker { gatekit_store *store; int category; int failures; };
static int thread_changes;

static void count_change(void *payload, int category, int old_state, int new_state) {
    (void)payload; (void)category; (void)old_state; (void)new_state;
    __atomic_add_fetch(&thread_changes, 1, __ATOMIC_SEQ_CST);
}

static void *worker(void *arg) {
    struct worker *w = arg;
    for (int r = 0; r < ROUNDS; r++) {
        if (perm_record(w->store, w->category, GATEKIT_PERM_DECISION_ASK_LATER) != 0) w->failures++;
        if (perm_state(w->store, w->category) != GATEKIT_PERM_STATE_ASK_AGAIN) w->failures++;
        if (perm_record(w->store, w->category, GATEKIT_PERM_DECISION_DONT_ASK) != 0) w->failures++;
        if (perm_record(w->store, w->category, GATEKIT_PERM_DECISION_DONT_ASK) != GATEKIT_EPERM_NOT_PROMPTABLE) w->failures++;
        for (int i = 0; i < NBUILTIN; i++) if (perm_state(w->store, builtins[i]) < 0) w->failures++;
        if (perm_reset(w->store, w->category) != 0) w->failures++;
    }
    return NULL;
}

static void test_threads(gatekit_store *s) {
    pthread_t t[THREADS];
    struct worker w[THREADS];
    int token = 0;
    char name[32];
    CHECK_RC(perm_subscribe(&token, s, count_change, NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        snprintf(name, sizeof name, "worker-%d", i);
        CHECK_RC(perm_register_category(s, 2000000 + i, name, "thread test"), 0);
        w[i] = (struct worker){s, 2000000 + i, 0};
    }
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, worker, &w[i]) == 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        CHECK_RC(w[i].failures, 0);
        CHECK_RC(perm_state(s, w[i].category), GATEKIT_PERM_STATE_UNKNOWN);
    }
    CHECK_RC(thread_changes, THREADS * ROUNDS * 3);
    char *json = NULL;
    CHECK_RC(perm_history(&json, s, 2000005), 0);
    if (json) {
        int rows = 0;
        for (const char *p = json; (p = strstr(p, "\"id\":")) != NULL; p++) rows++;
        CHECK_RC(rows, ROUNDS * 3);
        gatekit_free(json);
    }
    CHECK_RC(perm_unsubscribe(s, token), 0);
}

/* ---- another process ---- */
static int run_child(const char *self, const char *category, const char *decision) {
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--child", store_path, category, decision, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int child_main(const char *path, int category, int decision) {
    gatekit_store *s = NULL;
    if (check_store_open(&s, path) != 0) return 2;
    int rc = decision == 0 ? perm_reset(s, category) : perm_record(s, category, decision);
    gatekit_store_close(s);
    return rc == 0 ? 0 : 3;
}

static void test_other_process(gatekit_store *s, const char *self) {
    struct changes c = {0};
    c.store = s;
    CHECK_RC(perm_reset(s, GATEKIT_PERM_ALL), 0);
    CHECK_RC(perm_subscribe(&c.token, s, record_change, &c), 0);
    CHECK_RC(perm_state(s, GATEKIT_PERM_CAMERA), GATEKIT_PERM_STATE_UNKNOWN);

    char cat[16], dec[16];
    snprintf(cat, sizeof cat, "%d", GATEKIT_PERM_CAMERA);
    snprintf(dec, sizeof dec, "%d", GATEKIT_PERM_DECISION_DONT_ASK);
    CHECK_RC(run_child(self, cat, dec), 0);
    /* The cache follows the store's data version: the next read sees it at once... */
    CHECK_RC(perm_state(s, GATEKIT_PERM_CAMERA), GATEKIT_PERM_STATE_DO_NOT_ASK);
    CHECK_RC(c.n, 0);
    /* ...and perm_refresh reports it. */
    CHECK_RC(perm_refresh(s), 0);
    CHECK_RC(c.n, 1);
    CHECK(c.category[0] == GATEKIT_PERM_CAMERA && c.old_state[0] == 0 && c.new_state[0] == GATEKIT_PERM_STATE_DO_NOT_ASK);

    /* The watcher reports the next change on its own thread. */
    CHECK_RC(perm_watch_start(s, 10, 0), 0);
    CHECK_RC(perm_watch_start(s, 10, 0), GATEKIT_EPERM_WATCHING);
    snprintf(dec, sizeof dec, "%d", GATEKIT_PERM_DECISION_AUTHORIZED);
    snprintf(cat, sizeof cat, "%d", GATEKIT_PERM_MICROPHONE);
    CHECK_RC(run_child(self, cat, dec), 0);
    for (int waited = 0; waited < 5000 && __atomic_load_n(&c.n, __ATOMIC_SEQ_CST) < 2; waited += 5) sleep_ms(5);
    CHECK_RC(__atomic_load_n(&c.n, __ATOMIC_SEQ_CST), 2);
    CHECK(c.category[1] == GATEKIT_PERM_MICROPHONE && c.new_state[1] == GATEKIT_PERM_STATE_AUTHORIZED);
    CHECK(!pthread_equal(c.thread[1], pthread_self()));
    /* A reset by the other process too. */
    snprintf(dec, sizeof dec, "0");
    CHECK_RC(run_child(self, cat, dec), 0);
    for (int waited = 0; waited < 5000 && __atomic_load_n(&c.n, __ATOMIC_SEQ_CST) < 3; waited += 5) sleep_ms(5);
    CHECK_RC(__atomic_load_n(&c.n, __ATOMIC_SEQ_CST), 3);
    CHECK(c.category[2] == GATEKIT_PERM_MICROPHONE && c.old_state[2] == GATEKIT_PERM_STATE_AUTHORIZED && c.new_state[2] == 0);
    CHECK_RC(perm_watch_stop(s), 1);
    CHECK_RC(perm_watch_stop(s), 0);
    /* A second handle in this process is "another connection" too. */
    gatekit_store *other = open_store();
    CHECK_RC(perm_record(other, GATEKIT_PERM_HEALTH, GATEKIT_PERM_DECISION_DENIED), 0);
    CHECK_RC(perm_state(s, GATEKIT_PERM_HEALTH), GATEKIT_PERM_STATE_DENIED);
    CHECK_RC(perm_refresh(s), 0);
    CHECK_RC(c.n, 4);
    gatekit_store_close(other);
    CHECK_RC(perm_unsubscribe(s, c.token), 0);
}

/* A watcher left running is stopped by gatekit_store_close; a watcher callback may stop it. */
struct stopper { gatekit_store *store; int rc; int calls; };
static void stop_from_callback(void *payload, int category, int old_state, int new_state) {
    (void)category; (void)old_state; (void)new_state;
    struct stopper *st = payload;
    __atomic_store_n(&st->rc, perm_watch_stop(st->store), __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&st->calls, 1, __ATOMIC_SEQ_CST);
}

static void test_watcher_lifecycle(const char *self) {
    gatekit_store *s = open_store();
    CHECK_RC(perm_watch_start(s, 5, GATEKIT_PERM_WATCH_PROVIDER), 0);
    gatekit_store_close(s); /* must stop the thread, not crash */

    s = open_store();
    struct stopper st = {s, -99, 0};
    int token = 0;
    CHECK_RC(perm_subscribe(&token, s, stop_from_callback, &st), 0);
    CHECK_RC(perm_watch_start(s, 5, 0), 0);
    char cat[16], dec[16];
    snprintf(cat, sizeof cat, "%d", GATEKIT_PERM_REMINDERS);
    snprintf(dec, sizeof dec, "%d", GATEKIT_PERM_DECISION_DENIED);
    CHECK_RC(run_child(self, cat, dec), 0);
    for (int waited = 0; waited < 5000 && __atomic_load_n(&st.calls, __ATOMIC_SEQ_CST) < 1; waited += 5) sleep_ms(5);
    sleep_ms(50);
    CHECK_RC(__atomic_load_n(&st.calls, __ATOMIC_SEQ_CST), 1);
    CHECK_RC(__atomic_load_n(&st.rc, __ATOMIC_SEQ_CST), 1);
    CHECK_RC(perm_watch_stop(s), 0);
    gatekit_store_close(s);
}

/* ---- persistence ---- */
static void test_persistence(void) {
    gatekit_store *s = open_store();
    CHECK_RC(perm_record(s, GATEKIT_PERM_PHOTO_LIBRARY, GATEKIT_PERM_DECISION_DONT_ASK), 0);
    gatekit_store_close(s);
    s = open_store();
    CHECK_RC(perm_state(s, GATEKIT_PERM_PHOTO_LIBRARY), GATEKIT_PERM_STATE_DO_NOT_ASK);
    CHECK_RC(perm_category_from_name(s, "telemetry"), 1000000);
    int c = GATEKIT_PERM_PHOTO_LIBRARY, out = 0;
    size_t n = 0;
    CHECK_RC(perm_pending(&out, &n, s, &c, 1), 0); /* the usage description persisted too */
    CHECK(n == 0);
    gatekit_store_close(s);
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--child") == 0) return child_main(argv[2], atoi(argv[3]), atoi(argv[4]));
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) { fprintf(stderr, "cannot resolve /proc/self/exe\n"); return 1; }
    self[len] = 0;

    char dir[] = "/tmp/gatekit-perm-XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    snprintf(store_path, sizeof store_path, "%s/store.sqlite", dir);

    test_static();
    gatekit_store *s = open_store();
    if (!s) return check_report("test_perm");
    test_invalid(s);
    test_usage_descriptions(s);
    describe_all(s);
    test_state_machine(s);
    test_sequencing(s);
    test_reset_and_history(s);
    test_host_categories(s);
    test_portal_without_a_desktop(s);
    test_provider(s);
    test_callbacks(s);
    test_threads(s);
    test_other_process(s, self);
    CHECK_RC(gatekit_store_check(s), 0);
    gatekit_store_close(s);
    test_watcher_lifecycle(self);
    test_persistence();

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_report("test_perm");
}
