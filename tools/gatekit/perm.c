/* gatekit perm: permission state from the command line, and `watch` to see other processes'
 * changes as they happen. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The subcommands, as main checks them and `gatekit help commands` lists them. */
const char *const gk_perm_subcommands[] = {"list", "state", "usage", "register", "record", "pending", "reset", "history", "watch", NULL};

const char gk_perm_usage[] =
    "gatekit perm [--portal APP_ID|-] <subcommand> ...   (CATEGORY: a name such as camera, or a number)\n"
    "  --portal APP_ID                         answer from the desktop's permission store (xdg-desktop-portal)\n"
    "                                          for APP_ID; '-': the Flatpak sandbox's own app id\n"
    "  list [--json]                           every category: state, prompt allowed, usage text\n"
    "  state CATEGORY [--json]                 exit 0: a prompt is allowed, 3: it is not\n"
    "  usage CATEGORY TEXT                     set the usage description (needed to prompt)\n"
    "  register NUMBER NAME TEXT               a host category (NUMBER >= 1000000)\n"
    "  record CATEGORY ask-later|dont-ask|authorized|denied\n"
    "  pending CATEGORY... [--json]            the ones still to ask, in order (none: exit 3)\n"
    "  reset CATEGORY|all\n"
    "  history [CATEGORY] [--json]\n"
    "  watch [--interval MS] [--count N] [--timeout S] [--provider]\n"
    "                                          print changes by other processes as they happen,\n"
    "                                          until interrupted, N changes, or S seconds";

static int category_arg(gatekit_store *store, const char *text, int *out) {
    char *end = NULL;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (*text && end && *end == '\0' && errno == 0 && n >= -2147483647L - 1 && n <= 2147483647L) {
        *out = (int)n;
        return 0;
    }
    int rc = perm_category_from_name(store, text);
    if (rc < 0) return gk_fail(text, rc);
    *out = rc;
    return 0;
}

static int decision_arg(const char *text) {
    if (strcmp(text, "ask-later") == 0) return GATEKIT_PERM_DECISION_ASK_LATER;
    if (strcmp(text, "dont-ask") == 0) return GATEKIT_PERM_DECISION_DONT_ASK;
    if (strcmp(text, "authorized") == 0) return GATEKIT_PERM_DECISION_AUTHORIZED;
    if (strcmp(text, "denied") == 0) return GATEKIT_PERM_DECISION_DENIED;
    return 0;
}

/* The string or number value of "key" in one JSON object (our own output: no nesting). */
static const char *json_value(const char *object, const char *key, char *out, size_t cap) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr(object, pattern);
    const char *next = strchr(object + 1, '{');
    out[0] = 0;
    if (!p || (next && p > next)) return out;
    p += strlen(pattern);
    size_t n = 0;
    if (*p == '"') {
        for (p++; *p && *p != '"' && n + 1 < cap; p++) {
            if (*p == '\\' && p[1]) p++;
            out[n++] = *p;
        }
    } else {
        while (*p && *p != ',' && *p != '}' && n + 1 < cap) out[n++] = *p++;
    }
    out[n] = 0;
    return out;
}

static const char *display_name(gatekit_store *store, int category, char *buf, size_t cap) {
    const char *name = perm_category_name(category);
    if (name) return name;
    snprintf(buf, cap, "%d", category);
    char *json = NULL;
    if (perm_list(&json, store) == 0) {
        char key[32];
        snprintf(key, sizeof key, "\"category\":%d,", category);
        const char *e = strstr(json, key);
        if (e) json_value(e, "name", buf, cap);
        gatekit_free(json);
    }
    return buf;
}

static int list(gatekit_store *store, int as_json) {
    char *json = NULL;
    int rc = perm_list(&json, store);
    if (rc < 0) return gk_fail("perm_list", rc);
    if (as_json) {
        puts(json);
    } else {
        printf("%-8s  %-22s  %-12s  %-6s  %s\n", "number", "name", "state", "prompt", "usage description");
        for (const char *e = gk_json_first_item(json); e; e = strchr(e + 1, '{')) {
            char number[16], name[70], state[16], prompt[8], usage[200];
            json_value(e, "usage_description", usage, sizeof usage);
            printf("%-8s  %-22s  %-12s  %-6s  %s\n", json_value(e, "category", number, sizeof number),
                   json_value(e, "name", name, sizeof name), json_value(e, "state_name", state, sizeof state),
                   strcmp(json_value(e, "allows_prompt", prompt, sizeof prompt), "true") == 0 ? "yes" : "no",
                   strcmp(usage, "null") == 0 ? "(none)" : usage);
        }
    }
    gatekit_free(json);
    return GK_EXIT_OK;
}

static int state(gatekit_store *store, int category, int as_json) {
    int s = perm_state(store, category);
    if (s < 0) return gk_fail("perm_state", s);
    char buf[80];
    int allowed = perm_allows_prompt(s);
    /* The state allows a prompt, but asking needs a usage description too. */
    int cats[1] = {category};
    size_t n = 0;
    int no_usage = allowed && perm_pending(cats, &n, store, cats, 1) == GATEKIT_EPERM_NO_USAGE;
    if (no_usage) allowed = 0;
    const char *name = display_name(store, category, buf, sizeof buf);
    if (as_json) {
        printf("{\"category\":%d,\"name\":", category);
        gk_json_string(stdout, name);
        printf(",\"state\":%d,\"state_name\":\"%s\",\"allows_prompt\":%s,\"usage_description_missing\":%s}\n", s,
               perm_state_name(s), allowed ? "true" : "false", no_usage ? "true" : "false");
    } else {
        printf("%s %d %s (%d) prompt %s%s\n", name, category, perm_state_name(s), s, allowed ? "allowed" : "not allowed",
               no_usage ? " (no usage description: gatekit perm usage CATEGORY TEXT)" : "");
    }
    return allowed ? GK_EXIT_OK : GK_EXIT_NO;
}

static int pending(gatekit_store *store, int argc, char **argv, int as_json) {
    int *cats = calloc((size_t)argc + 1, sizeof *cats);
    if (!cats) return GK_EXIT_ERROR;
    for (int i = 0; i < argc; i++) {
        if (category_arg(store, argv[i], &cats[i]) != 0) { free(cats); return GK_EXIT_ERROR; }
    }
    size_t n = 0;
    int rc = perm_pending(cats, &n, store, cats, (size_t)argc);
    if (rc < 0) { free(cats); return gk_fail("perm_pending", rc); }
    char buf[80];
    if (as_json) printf("{\"version\":1,\"pending\":[");
    for (size_t i = 0; i < n; i++) {
        const char *name = display_name(store, cats[i], buf, sizeof buf);
        if (as_json) {
            printf("%s{\"category\":%d,\"name\":", i ? "," : "", cats[i]);
            gk_json_string(stdout, name);
            printf("}");
        } else {
            printf("%s %d\n", name, cats[i]);
        }
    }
    if (as_json) printf("]}\n");
    free(cats);
    return n ? GK_EXIT_OK : GK_EXIT_NO;
}

static int history(gatekit_store *store, int category, int as_json) {
    char *json = NULL;
    int rc = perm_history(&json, store, category);
    if (rc < 0) return gk_fail("perm_history", rc);
    if (as_json) {
        puts(json);
    } else {
        printf("%-24s  %-22s  %-8s  %s\n", "at", "category", "source", "change");
        for (const char *e = gk_json_first_item(json); e; e = strchr(e + 1, '{')) {
            char at[40], name[70], source[16], from[16], to[16], from_n[16], to_n[16];
            printf("%-24s  %-22s  %-8s  %s (%s) -> %s (%s)\n", json_value(e, "at", at, sizeof at),
                   json_value(e, "name", name, sizeof name), json_value(e, "source", source, sizeof source),
                   json_value(e, "from_state", from_n, sizeof from_n), json_value(e, "from", from, sizeof from),
                   json_value(e, "to_state", to_n, sizeof to_n), json_value(e, "to", to, sizeof to));
        }
    }
    gatekit_free(json);
    return GK_EXIT_OK;
}

/* ---- watch ---- */

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { (void)sig; interrupted = 1; }

typedef struct { gatekit_store *store; int seen; } watch_state;

/* Runs on the watcher's thread; the main thread only reads `seen`. */
static void print_change(void *payload, int category, int old_state, int new_state) {
    watch_state *w = payload;
    char buf[80], stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    printf("%s %s %d: %s (%d) -> %s (%d)\n", stamp, display_name(w->store, category, buf, sizeof buf), category,
           perm_state_name(old_state), old_state, perm_state_name(new_state), new_state);
    fflush(stdout);
    __atomic_add_fetch(&w->seen, 1, __ATOMIC_SEQ_CST);
}

static int watch(gatekit_store *store, int argc, char **argv) {
    const char *interval = "100", *count = NULL, *timeout = NULL;
    int flags = 0;
    for (int i = 0; i < argc; i++) {
        int r = 0;
        if ((r = gk_option(argc, argv, &i, "--interval", &interval)) || (r = gk_option(argc, argv, &i, "--count", &count)) ||
            (r = gk_option(argc, argv, &i, "--timeout", &timeout))) {
            if (r < 0) return gk_usage(gk_perm_usage);
            continue;
        }
        if (strcmp(argv[i], "--provider") == 0) { flags |= GATEKIT_PERM_WATCH_PROVIDER; continue; }
        fprintf(stderr, "gatekit perm watch: unexpected argument %s\n", argv[i]);
        return gk_usage(gk_perm_usage);
    }
    int limit = count ? atoi(count) : 0;
    double seconds = timeout ? atof(timeout) : 0;
    if ((count && limit <= 0) || (timeout && seconds <= 0)) {
        fprintf(stderr, "gatekit perm watch: --count and --timeout are positive numbers\n");
        return gk_usage(gk_perm_usage);
    }

    watch_state w = {store, 0};
    int token = 0, rc = perm_subscribe(&token, store, print_change, &w);
    if (rc < 0) return gk_fail("perm_subscribe", rc);
    if ((rc = perm_watch_start(store, atoi(interval), flags)) < 0) return gk_fail("perm_watch_start", rc);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fprintf(stderr, "gatekit perm watch: watching %s (Ctrl-C to stop)\n", gatekit_store_path(store));
    struct timespec start, tick = {0, 20 * 1000000L};
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!interrupted) {
        if (limit && __atomic_load_n(&w.seen, __ATOMIC_SEQ_CST) >= limit) break;
        if (seconds > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 >= seconds) break;
        }
        nanosleep(&tick, NULL);
    }
    int stopped = perm_watch_stop(store), unsubscribed = perm_unsubscribe(store, token);
    if (stopped < 0) return gk_fail("perm_watch_stop", stopped);
    if (unsubscribed < 0) return gk_fail("perm_unsubscribe", unsubscribed);
    /* With --count, stopping early is a failure to see what was expected. */
    return limit && __atomic_load_n(&w.seen, __ATOMIC_SEQ_CST) < limit ? GK_EXIT_NO : GK_EXIT_OK;
}

int gk_cmd_perm(gk_cli *cli, int argc, char **argv) {
    const char *portal = NULL;
    if (argc >= 3 && strcmp(argv[1], "--portal") == 0) {
        portal = argv[2];
        argv += 2;
        argc -= 2;
    }
    if (argc < 2) return gk_usage(gk_perm_usage);
    const char *sub = argv[1];
    int as_json = argc > 2 && strcmp(argv[argc - 1], "--json") == 0;
    int nargs = argc - 2 - as_json;
    char **args = argv + 2;
    /* Questions never create a store: only what records something (and watch) opens one. */
    int writes = strcmp(sub, "usage") == 0 || strcmp(sub, "register") == 0 || strcmp(sub, "record") == 0 ||
                 strcmp(sub, "reset") == 0 || strcmp(sub, "watch") == 0;  /* watch waits on the store others write */
    gatekit_store *store = writes ? gk_store(cli) : gk_question_store(cli);
    if (!store) return GK_EXIT_ERROR;
    int category = 0, rc;
    if (portal && (rc = perm_use_portal(store, strcmp(portal, "-") == 0 ? NULL : portal)) < 0) return gk_fail("perm_use_portal", rc);

    if (strcmp(sub, "list") == 0 && nargs == 0) return list(store, as_json);
    if (strcmp(sub, "state") == 0 && nargs == 1) {
        if (category_arg(store, args[0], &category)) return GK_EXIT_ERROR;
        return state(store, category, as_json);
    }
    if (strcmp(sub, "usage") == 0 && nargs == 2) {
        if (category_arg(store, args[0], &category)) return GK_EXIT_ERROR;
        if ((rc = perm_set_usage_description(store, category, args[1])) < 0) return gk_fail("perm_set_usage_description", rc);
        return GK_EXIT_OK;
    }
    if (strcmp(sub, "register") == 0 && nargs == 3) {
        if (category_arg(store, args[0], &category)) return GK_EXIT_ERROR;
        if ((rc = perm_register_category(store, category, args[1], args[2])) < 0) return gk_fail("perm_register_category", rc);
        printf("registered %s %d\n", args[1], category);
        return GK_EXIT_OK;
    }
    if (strcmp(sub, "record") == 0 && nargs == 2) {
        if (category_arg(store, args[0], &category)) return GK_EXIT_ERROR;
        int decision = decision_arg(args[1]);
        if (!decision) {
            fprintf(stderr, "gatekit perm record: the decision is ask-later, dont-ask, authorized or denied, not %s\n", args[1]);
            return gk_usage(gk_perm_usage);
        }
        if ((rc = perm_record(store, category, decision)) < 0) return gk_fail("perm_record", rc);
        return state(store, category, as_json) == GK_EXIT_ERROR ? GK_EXIT_ERROR : GK_EXIT_OK;
    }
    if (strcmp(sub, "pending") == 0 && nargs >= 1) return pending(store, nargs, args, as_json);
    if (strcmp(sub, "reset") == 0 && nargs == 1) {
        if (strcmp(args[0], "all") == 0) category = GATEKIT_PERM_ALL;
        else if (category_arg(store, args[0], &category)) return GK_EXIT_ERROR;
        if ((rc = perm_reset(store, category)) < 0) return gk_fail("perm_reset", rc);
        printf("reset %s\n", args[0]);
        return GK_EXIT_OK;
    }
    if (strcmp(sub, "history") == 0 && nargs <= 1) {
        category = GATEKIT_PERM_ALL;
        if (nargs == 1 && category_arg(store, args[0], &category)) return GK_EXIT_ERROR;
        return history(store, category, as_json);
    }
    if (strcmp(sub, "watch") == 0) return watch(store, argc - 2, argv + 2);
    fprintf(stderr, "gatekit perm: unknown subcommand or wrong arguments: %s\n", sub);
    return gk_usage(gk_perm_usage);
}
