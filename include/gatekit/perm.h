/* gatekit/perm.h — permissions.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_PERM_H
#define GATEKIT_PERM_H

#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Permissions
 *
 * May the app ask for a permission now? ISHPermissionKit's model on Linux (docs/permissions.md).
 *
 * A category is a number that is persisted and never changes meaning. A category's state is
 * the system's answer when a system-state provider gives one (authorized, denied,
 * unsupported), else the state stored from the host's own records ("internal" state).
 * Stored states follow the state machine:
 *
 *   unknown or ask again --ASK_LATER---> ask again
 *                        --DONT_ASK----> do not ask again
 *                        --AUTHORIZED--> authorized
 *                        --DENIED------> denied
 *
 * Do-not-ask, denied, authorized and unsupported are final: recording on them is refused
 * (GATEKIT_EPERM_NOT_PROMPTABLE); only perm_reset() leaves them. Every change is appended to
 * a history (perm_history) that is never rewritten.
 *
 * Threads: every function taking a store is safe from many threads on one handle. Callbacks
 * (gatekit_perm_changed_fn) run on the thread of the call that detected the change —
 * perm_record, perm_reset, perm_refresh, perm_set_system_provider — after every GateKit lock
 * was released, or on the watcher's own thread (perm_watch_start). A callback may call any
 * GateKit function, including perm_unsubscribe of itself. The provider
 * (gatekit_perm_provider_fn) is called without any GateKit lock held, possibly from several
 * threads at once; from inside it, the functions that would consult it again or change state
 * fail with GATEKIT_EPERM_REENTRANT.
 * ====================================================================================== */

/* States (persisted numbers). */
#define GATEKIT_PERM_STATE_UNKNOWN      0    /* never decided: a prompt is allowed */
#define GATEKIT_PERM_STATE_ASK_AGAIN    100  /* "ask me later" on the pre-prompt: allowed */
#define GATEKIT_PERM_STATE_AUTHORIZED   200  /* granted through the system dialog: final */
#define GATEKIT_PERM_STATE_DENIED       403  /* denied through the system dialog: final */
#define GATEKIT_PERM_STATE_DO_NOT_ASK   406  /* "don't ask" on the pre-prompt: final */
#define GATEKIT_PERM_STATE_UNSUPPORTED  501  /* not on this platform (provider only): final */

/* Decisions the host records. */
#define GATEKIT_PERM_DECISION_ASK_LATER   1  /* pre-prompt: "ask me later" or cancel */
#define GATEKIT_PERM_DECISION_DONT_ASK    2  /* pre-prompt: "don't ask" */
#define GATEKIT_PERM_DECISION_AUTHORIZED  3  /* system dialog: allowed */
#define GATEKIT_PERM_DECISION_DENIED      4  /* system dialog: denied */

/* Built-in categories (ISHPermissionKit's numbers). 5000 and 8100 are retired and refused. */
#define GATEKIT_PERM_ACTIVITY              1000   /* "activity" (motion) */
#define GATEKIT_PERM_HEALTH                2000   /* "health" */
#define GATEKIT_PERM_LOCATION_ALWAYS       3100   /* "location-always" */
#define GATEKIT_PERM_LOCATION_WHEN_IN_USE  3200   /* "location-when-in-use" */
#define GATEKIT_PERM_MICROPHONE            4000   /* "microphone" */
#define GATEKIT_PERM_PHOTO_LIBRARY         5050   /* "photo-library" */
#define GATEKIT_PERM_CAMERA                5100   /* "camera" */
#define GATEKIT_PERM_NOTIFICATION_LOCAL    6100   /* "notification-local" (deprecated) */
#define GATEKIT_PERM_NOTIFICATION_REMOTE   6200   /* "notification-remote" (deprecated) */
#define GATEKIT_PERM_USER_NOTIFICATION     6500   /* "user-notification" */
#define GATEKIT_PERM_SOCIAL_FACEBOOK       7100   /* "social-facebook" (deprecated) */
#define GATEKIT_PERM_SOCIAL_TWITTER        7110   /* "social-twitter" (deprecated) */
#define GATEKIT_PERM_SOCIAL_SINA_WEIBO     7120   /* "social-sina-weibo" (deprecated) */
#define GATEKIT_PERM_SOCIAL_TENCENT_WEIBO  7130   /* "social-tencent-weibo" (deprecated) */
#define GATEKIT_PERM_EVENTS                8200   /* "events" (calendar) */
#define GATEKIT_PERM_REMINDERS             8250   /* "reminders" */
#define GATEKIT_PERM_CONTACTS              8500   /* "contacts" */
#define GATEKIT_PERM_SIRI                  9000   /* "siri" (assistant) */
#define GATEKIT_PERM_SPEECH_RECOGNITION    10000  /* "speech-recognition" */
#define GATEKIT_PERM_MUSIC_LIBRARY         11000  /* "music-library" */

/* Host categories: numbers from GATEKIT_PERM_HOST_FIRST to INT_MAX, see perm_register_category. */
#define GATEKIT_PERM_HOST_FIRST  1000000
/* "Every category", for perm_reset() and perm_history() only. */
#define GATEKIT_PERM_ALL         (-1)

/* perm_watch_start() flags. */
#define GATEKIT_PERM_WATCH_PROVIDER  1   /* also ask the provider about every category each poll */

/* Errors (-200 … -299). */
#define GATEKIT_EPERM_CATEGORY        (-200) /* not a category: 0, unassigned, or an unregistered host number */
#define GATEKIT_EPERM_RETIRED         (-201) /* a retired number (5000, 8100) */
#define GATEKIT_EPERM_DECISION        (-202) /* not a GATEKIT_PERM_DECISION_* value */
#define GATEKIT_EPERM_NOT_PROMPTABLE  (-203) /* the state is final: no prompt, no record (perm_reset leaves it) */
#define GATEKIT_EPERM_BLOCKED         (-204) /* another category's answer rules this one out (location-always) */
#define GATEKIT_EPERM_NO_USAGE        (-205) /* no usage description for the category (named in the detail) */
#define GATEKIT_EPERM_CONFLICT        (-206) /* the number or name already means something else */
#define GATEKIT_EPERM_PROVIDER        (-207) /* the provider answered something other than 0/200/403/501 */
#define GATEKIT_EPERM_REENTRANT       (-208) /* called from inside the system-state provider */
#define GATEKIT_EPERM_TOKEN           (-209) /* no subscription has this token */
#define GATEKIT_EPERM_WATCHING        (-210) /* the watcher is already running */
#define GATEKIT_EPERM_PORTAL          (-211) /* the desktop permission store cannot be reached (no session bus, or xdg-permission-store not running), or is not this handle's provider */

/* Called with a category's effective state before and after a change (see Threads above).
 * payload is the pointer given to perm_subscribe(). */
typedef void (*gatekit_perm_changed_fn)(void *payload, int category, int old_state, int new_state);

/* Returns the system's state for a category: GATEKIT_PERM_STATE_AUTHORIZED, _DENIED,
 * _UNSUPPORTED, or _UNKNOWN for "not determined" (the stored state then decides). A negative
 * number means "could not tell" and counts as not determined; any other number makes the
 * asking call fail with GATEKIT_EPERM_PROVIDER. It must answer quickly. */
typedef int (*gatekit_perm_provider_fn)(void *payload, int category);

/* The category's name ("camera"), static storage, never freed; NULL for a number that is not
 * a built-in category (host names: perm_list() or perm_category_from_name()). Any thread. */
GATEKIT_API const char *perm_category_name(int category);

/* The category named name: a built-in name, or with a store also a registered host name.
 * store may be NULL (built-ins only). Returns the number (> 0), or GATEKIT_EINVAL (name NULL),
 * GATEKIT_EPERM_CATEGORY (no such name). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_category_from_name(gatekit_store *store, const char *name);

/* The state's name ("ask-again"), static storage; NULL for a number that is no state. */
GATEKIT_API const char *perm_state_name(int state);

/* 1 when the state allows a prompt (unknown, ask again), 0 for every other number. */
GATEKIT_API int perm_allows_prompt(int state);

/* Installs the system-state provider for this handle (fn NULL removes it); payload is passed
 * back to fn. Returns after any call of the previous provider on another thread has
 * returned, so its payload may then be freed. Effective states that change with it are
 * reported to subscribers on this thread (like perm_refresh). Errors: GATEKIT_EINVAL (store
 * NULL), GATEKIT_EPERM_REENTRANT. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_set_system_provider(gatekit_store *store, gatekit_perm_provider_fn fn, void *payload);

/* Sets the text that justifies a prompt for category (1-4096 bytes of UTF-8), persisted in
 * the store; the same text again writes nothing. Required before perm_pending, perm_next or
 * perm_record accept the category. Errors: GATEKIT_EINVAL (NULL, empty, too long),
 * GATEKIT_EPERM_CATEGORY, GATEKIT_EPERM_RETIRED, store errors. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_set_usage_description(gatekit_store *store, int category, const char *text);

/* Registers a host category (telemetry, crash reports, screen capture, …): a number from
 * GATEKIT_PERM_HOST_FIRST, a name of 1-64 characters [a-z0-9._-] starting with a letter, and
 * its usage description. Persisted; the same number and name again is allowed (the
 * description is updated). Errors: GATEKIT_EINVAL (bad name or text), GATEKIT_EPERM_CATEGORY
 * (number below the host range), GATEKIT_EPERM_RETIRED, GATEKIT_EPERM_CONFLICT (a built-in
 * number or name, or a number/name registered with another name/number). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_register_category(gatekit_store *store, int category, const char *name, const char *usage_description);

/* The category's effective state (>= 0, a GATEKIT_PERM_STATE_*), or < 0: GATEKIT_EINVAL,
 * GATEKIT_EPERM_CATEGORY, GATEKIT_EPERM_RETIRED, GATEKIT_EPERM_PROVIDER,
 * GATEKIT_EPERM_REENTRANT, store errors. Without a provider it is served from memory (kept
 * coherent with the store, other processes included, through SQLite's data version). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_state(gatekit_store *store, int category);

/* Records the user's answer on the host's own pre-prompt (ASK_LATER, DONT_ASK) or the system
 * dialog's result (AUTHORIZED, DENIED); durable when it returns 0. The state before must
 * allow a prompt; a dialog result the provider already reports is accepted too.
 * Errors: GATEKIT_EPERM_DECISION, GATEKIT_EPERM_CATEGORY, GATEKIT_EPERM_RETIRED,
 * GATEKIT_EPERM_NO_USAGE, GATEKIT_EPERM_NOT_PROMPTABLE, GATEKIT_EPERM_BLOCKED
 * (location-always while location-when-in-use is denied or do-not-ask),
 * GATEKIT_EPERM_PROVIDER, GATEKIT_EPERM_REENTRANT, store errors. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_record(gatekit_store *store, int category, int decision);

/* Keeps, in order and each once, the categories that still allow a prompt: state unknown or
 * ask again, and not ruled out by another answer (location-always is dropped while
 * location-when-in-use is denied or do-not-ask). out must have room for count ints (it may
 * be categories itself); *out_count = 0 means "nothing to ask". out may be NULL when count
 * is 0. Every category must be valid and have a usage description (GATEKIT_EPERM_NO_USAGE
 * names the first without). GATEKIT_ETOOLARGE above 65536 categories. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_pending(int *out, size_t *out_count, gatekit_store *store, const int *categories, size_t count);

/* One step of a prompt sequence: *out = the first category after the first occurrence of
 * after (after = 0: from the start) that allows a prompt now, skipping any category already
 * at or before that position; *out = 0 when nothing is left. Re-evaluated on every call, so
 * a host that calls it with the category it just recorded never sees a category twice nor
 * one that became unpromptable. GATEKIT_EINVAL when after is neither 0 nor in categories;
 * otherwise as perm_pending(). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_next(int *out, gatekit_store *store, const int *categories, size_t count, int after);

/* Sets the stored state of category (GATEKIT_PERM_ALL: every category) back to unknown —
 * the way out of a final state, e.g. after a privacy reset. Each actual change is appended
 * to the history (source "reset"); resetting an unknown category changes nothing.
 * Errors: GATEKIT_EPERM_CATEGORY, GATEKIT_EPERM_RETIRED, GATEKIT_EPERM_REENTRANT, store errors. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_reset(gatekit_store *store, int category);

/* The history of category (GATEKIT_PERM_ALL: every category) as JSON, oldest first:
 *   {"version":1,"changes":[{"id":1,"category":5100,"name":"camera","from":0,"from_state":"unknown",
 *     "to":406,"to_state":"do-not-ask","source":"user","at":"2026-11-22T07:12:03.120Z","at_ms":...}]}
 * source: "user" (pre-prompt), "system" (dialog result), "reset", "provider" (the provider's
 * answer changed; from/to are then its answers, 0 = not determined). *out_json is freed
 * with gatekit_free(). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_history(char **out_json, gatekit_store *store, int category);

/* Every category (built-ins, then host ones) as {"version":1,"categories":[...]} of objects
 * {"category","name","state","state_name","allows_prompt","stored","system","usage_description","host","deprecated"};
 * "system" is the provider's answer or null without one; "allows_prompt" is true only when the
 * state allows a prompt and the category has a usage description (asking needs both: record
 * and pending refuse a category without one). Freed with gatekit_free(). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_list(char **out_json, gatekit_store *store);

/* Calls fn(payload, category, old, new) for every change of an effective state detected
 * through this handle from now on. *out_token (> 0) identifies the subscription.
 * Errors: GATEKIT_EINVAL (NULL), GATEKIT_ETOOLARGE (more than 4096 subscriptions). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_subscribe(int *out_token, gatekit_store *store, gatekit_perm_changed_fn fn, void *payload);

/* Ends a subscription. After it returns fn is not called again, and no call of it is still
 * running on another thread — except when called from inside a callback, where it returns
 * at once (it cannot wait) and only the promise "not called again" holds. Safe from inside
 * fn itself. Errors: GATEKIT_EINVAL, GATEKIT_EPERM_TOKEN. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_unsubscribe(gatekit_store *store, int token);

/* Re-reads the store (changes by other handles and processes) and asks the provider about
 * every category; callbacks fire on this thread for every change since subscribers were
 * last told. Changed provider answers are appended to the history (once across processes).
 * Errors: GATEKIT_EPERM_PROVIDER (after the other changes were delivered),
 * GATEKIT_EPERM_REENTRANT, store errors. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_refresh(gatekit_store *store);

/* Starts a background thread that polls the store's data version every interval_ms
 * (1-3600000) and delivers changes made by other handles and processes, as perm_refresh
 * would, ON THAT THREAD. flags: 0 or GATEKIT_PERM_WATCH_PROVIDER (also poll the provider).
 * Errors: GATEKIT_EINVAL (interval, flags), GATEKIT_EPERM_WATCHING (already running),
 * GATEKIT_EPERM_REENTRANT, GATEKIT_EINTERNAL (no thread). A poll that fails (store busy,
 * invalid provider answer) is retried at the next one. gatekit_store_close() stops it. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_watch_start(gatekit_store *store, int interval_ms, int flags);

/* Stops the watcher: returns 1 after its thread exited (a callback it was running has
 * returned), 0 when none was running. Called from one of the watcher's own callbacks it
 * returns 1 at once and the thread ends after that callback. Errors: GATEKIT_EINVAL,
 * GATEKIT_EPERM_REENTRANT. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_watch_stop(gatekit_store *store);

/* ---- The Linux desktop's permission store (xdg-desktop-portal) ----
 * perm_use_portal() makes the desktop's own answers the system state, as ISHPermissionKit
 * asks iOS first: the permission store of xdg-desktop-portal (org.freedesktop.impl.portal.
 * PermissionStore on the session bus, served by xdg-permission-store; what `flatpak
 * permission-show` lists). Built-in mapping (docs/permissions.md): camera -> devices/camera,
 * microphone -> devices/microphone, location-when-in-use and location-always ->
 * location/location, user-notification (and the deprecated notification-local/-remote) ->
 * notifications/notification. "yes" is AUTHORIZED, "no" DENIED; location's accuracy "NONE"
 * DENIED, any other accuracy AUTHORIZED; no entry or "ask": not determined, so the stored
 * state decides. Every other category answers not determined unless perm_portal_map() maps
 * it. Answers come from a cache filled at enable time and kept current by the store's
 * Changed signal on a GateKit thread (no D-Bus round trip per answer, no polling); each change
 * runs perm_refresh's change detection there, so subscribers are called ON THAT THREAD.
 * libdbus-1 is loaded on the first call (Debian libdbus-1-3). */

/* Enables the portal provider for app_id (NULL: the sandboxed app's id from /.flatpak-info;
 * outside a Flatpak sandbox an explicit id is required: GATEKIT_EINVAL). Replaces any other
 * provider; perm_set_system_provider(store, NULL, NULL) removes it. Blocks up to 2 s per
 * mapped entry while reading the store. Errors: GATEKIT_EPERM_PORTAL with the reason (no
 * session bus, the store not running or not answering), GATEKIT_EINVAL, GATEKIT_EPERM_REENTRANT.
 * Later failures (the store or the bus went away) never fail a call: answers fall back to the
 * stored state until the store is back (perm_portal_status() says why). */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_use_portal(gatekit_store *store, const char *app_id);

/* Maps a category (built-in or registered host category) to the permission store's entry
 * table/id, e.g. a host "background" category to "background"/"background"; table and id
 * both NULL: no portal answer for it. Reads the entry now (blocks up to 2 s). Errors:
 * GATEKIT_EPERM_PORTAL (no portal provider on this handle, or the store did not answer),
 * GATEKIT_EPERM_CATEGORY, GATEKIT_EINVAL (one of table/id NULL, empty, over 255 bytes or
 * unprintable), GATEKIT_EPERM_REENTRANT. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_portal_map(gatekit_store *store, int category, const char *table, const char *id);

/* 0 while answers come from the desktop's permission store; GATEKIT_EPERM_PORTAL when they
 * fall back to the stored state now (gatekit_last_error() says why: the store left the bus,
 * the bus connection was lost) or when the portal is not this handle's provider. */
GATEKIT_API GATEKIT_WARN_UNUSED int perm_portal_status(gatekit_store *store);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_PERM_H */
