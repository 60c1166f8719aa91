/* Hostile use of the C ABI: every exported function called with NULL for each pointer
 * argument, empty strings, non-UTF-8 bytes, oversized strings, lengths 0 and SIZE_MAX,
 * odd integers, and *_free(NULL). Each call runs in a forked child, so a crash is reported
 * as a failure naming the call instead of killing the test.
 *
 * Expectations: NULL for a required pointer gives exactly GATEKIT_EINVAL; every other
 * hostile value gives a success or a negative GATEKIT_E* code other than EINTERNAL, with a
 * non-NULL gatekit_last_error(); no call crashes, traps or hangs (5 s per call; 120 s under a sanitizer).
 *
 * Adding a function: write a thunk `static int call_x(arg *a)` and add one row to `api`
 * with the kind of each argument (see `kind`). The test fails when a function declared
 * with GATEKIT_API in include/gatekit/<domain>.h has no row. */
#include "check.h"

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef union {
    void *p;
    const char *s;
    size_t n;
    int i;
    long long ll;
} arg;

/* What an argument is: decides its valid value and its hostile variants. */
typedef enum {
    END = 0,
    STORE,      /* gatekit_store *: an open store (required) */
    OUT_PTR,    /* T **out: receives a handle or string (required) */
    OUT_HASH,   /* char out[GATEKIT_HASH_HEX_SIZE] (required) */
    STR,        /* required UTF-8 string (identifier) */
    OPT_STR,    /* optional UTF-8 string (NULL = default/all) */
    OPT_BYTES,  /* optional byte string, need not be UTF-8 (user names) */
    HASH,       /* required 64-hex-digit string */
    PATH,       /* required path of an existing readable file */
    OPT_PATH,   /* optional store path (NULL = default location) */
    APP_ID,     /* optional app id */
    DATA,       /* const void *data, followed by its LEN */
    LEN,        /* size_t length of the preceding DATA */
    INT,        /* int: any value */
    FREE_PTR,   /* a pointer a *_free function accepts (NULL must be a no-op) */
    RECEIPT,    /* const gatekit_receipt *: a validated receipt (required) */
    R_OPTIONS,  /* const gatekit_receipt_options * (required) */
    R_DATA,     /* const void *: receipt bytes, followed by their LEN */
    J_OPTIONS,  /* const gatekit_jws_options * (required) */
    JWS,        /* const char *: a compact JWS (required) */
    OUT_LL,     /* long long *out (required) */
    OUT_BYTES,  /* const unsigned char **out (required) */
    OUT_SIZE,   /* size_t *out_len (required) */
    PURCHASE,   /* gatekit_purchase *out (required) */
    INDEX,      /* size_t index into the purchases */
    ATTR,       /* int attribute / field id */
    AT_MS,      /* long long instant (0: now) */
    PRODUCT,    /* required product id */
    OPT_PRODUCT,/* optional product id (NULL: any) */
    OPTS_INIT,  /* options struct an *_init function fills (NULL: no-op) */
    OPT_STORE,  /* gatekit_store * that may be NULL */
    CATEGORY,   /* int permission category */
    DECISION,   /* int GATEKIT_PERM_DECISION_* */
    PERM_NAME,  /* required category name */
    USAGE,      /* required usage description text */
    CATS,       /* const int *categories, followed by CAT_COUNT */
    CAT_COUNT,  /* size_t number of categories */
    OUT_INT,    /* int *out (required) */
    OUT_CATS,   /* int *out with room for the categories (may be NULL only when count is 0) */
    PROVIDER,   /* gatekit_perm_provider_fn (NULL: remove) */
    CHANGED,    /* gatekit_perm_changed_fn (required) */
    PAYLOAD,    /* void * passed back to a callback */
    TOKEN,      /* int subscription token */
    INTERVAL,   /* int watcher interval in ms */
    WFLAGS,     /* int watcher flags */
    JWS_KIND,   /* int GATEKIT_JWS_* kind */
    SIGNED,     /* const gatekit_jws *: verified signed data (required) */
    OPT_OUT,    /* char **out_json that may be NULL (the report is then not made) */
    L_QUERY,    /* const gatekit_ledger_query * (required) */
    ENT_OUT,    /* gatekit_entitlement *out that may be NULL */
    IDS,        /* const char *const *product_ids, followed by ID_COUNT */
    ID_COUNT,   /* size_t number of product ids */
    JWS_LIST,   /* const char *const *jws: signed items, followed by JWS_COUNT */
    JWS_COUNT,  /* size_t number of signed items */
    PEM,        /* const void *: a .p8 key's bytes, followed by its LEN */
    AS_KEY,     /* const gatekit_appstore_key * (required) */
    NONCE,      /* required UUID text */
    JSON_OBJ,   /* required JSON object text */
    AS_CLIENT,  /* gatekit_appstore_client * (required): one whose server refuses connections */
    C_OPTIONS,  /* const gatekit_appstore_client_options * (required) */
    OPT_JSON,   /* optional JSON object text (NULL: none) */
    PKI_DIR,    /* required folder of a test PKI (jws_test_pki_create made it at start) */
    PAYLOAD_JSON, /* required payload to sign: malformed ones are verdicts (GATEKIT_EJWS_*) */
    S_OPTIONS,  /* const gatekit_ledger_sync_options * (required) */
    J_OPTS_LIST,  /* const gatekit_jws_options *const *: one per environment, followed by J_OPTS_COUNT */
    J_OPTS_COUNT, /* size_t number of options */
    OPT_CLIENT, /* gatekit_appstore_client * that may be NULL (ledger_set_refresher: detach) */
    CONSENT,    /* const gatekit_eula_consent * that may be NULL (nothing said) */
    NAMES,      /* required "document@hash-prefix" list */
    ENV_VAR,    /* required environment variable name */
    PUBLICATION,/* const gatekit_eula_publication * (required) */
    PRESENT_OUT,/* gatekit_eula_presentation *out that may be NULL */
    WRITE_FN,   /* gatekit_write_fn (required) */
    EFLAGS,     /* unsigned int GATEKIT_EULA_EXPORT_* flags */
    CFLAGS,     /* unsigned int GATEKIT_CATALOG_* flags */
    OPT_LL_OUT, /* long long *out that may be NULL */
    P_CLIENT,   /* gatekit_play_client * (required): one whose server refuses connections */
    P_OPTIONS,  /* const gatekit_play_client_options * (required) */
    PUSH_OPTIONS, /* const gatekit_play_push_options * (required) */
    PUSH_V,     /* gatekit_play_push_verifier * (required): one with a fixed key set */
    T_ISSUER,   /* const gatekit_play_test_issuer * (required) */
    PS_OPTIONS, /* const gatekit_ledger_play_sync_options * that may be NULL (the defaults) */
    OPT_P_CLIENT, /* gatekit_play_client * that may be NULL (ledger_set_play_refresher: detach) */
    ST_OPTIONS, /* const gatekit_ledger_stripe_options * that may be NULL (the defaults) */
    SC_OPTIONS, /* const gatekit_stripe_client_options * (required) */
    S_CLIENT,   /* gatekit_stripe_client * (required): one whose server refuses connections */
    SS_OPTIONS, /* const gatekit_ledger_stripe_sync_options * that may be NULL (the defaults) */
    OPT_S_CLIENT, /* gatekit_stripe_client * that may be NULL (ledger_set_stripe_refresher: detach) */
    OPT_SIZE_OUT, /* size_t *out that may be NULL */
    WD_OPTIONS, /* const gatekit_webhook_delivery_options * (required) */
} kind;

enum { MAX_ARGS = 10 };

typedef struct {
    const char *name;
    int (*call)(arg *a);   /* returns the function's result (void functions return 0) */
    kind args[MAX_ARGS];
    int returns_pointer;   /* the result is a pointer: only "no crash" is checked */
} api_entry;

/* ---- thunks: one per exported function ---------------------------------------------- */

static int call_gatekit_version(arg *a) { (void)a; return gatekit_version() ? 0 : -1; }
static int call_gatekit_version_number(arg *a) { (void)a; return gatekit_version_number() > 0 ? 0 : -1; }
static int call_gatekit_strerror(arg *a) { return gatekit_strerror(a[0].i) ? 0 : -1; }
static int call_gatekit_last_error(arg *a) { (void)a; return gatekit_last_error() ? 0 : -1; }
static int call_gatekit_free(arg *a) { gatekit_free(a[0].p); return 0; }
static int call_gatekit_hash_hex_size(arg *a) { (void)a; return gatekit_hash_hex_size() == GATEKIT_HASH_HEX_SIZE ? 0 : -1; }
static int call_gatekit_store_open_flags(arg *a) {
    int rc = gatekit_store_open_flags((gatekit_store **)a[0].p, a[1].s, a[2].s, (unsigned)a[3].i);
    if (rc == 0 && a[0].p) gatekit_store_close(*(gatekit_store **)a[0].p);
    return rc;
}
static int call_gatekit_store_open_listening(arg *a) {
    int rc = gatekit_store_open_listening((gatekit_store **)a[0].p, a[1].s, a[2].s, (unsigned)a[3].i, a[4].s);
    if (rc == 0 && a[0].p) gatekit_store_close(*(gatekit_store **)a[0].p);
    return rc;
}
static int call_gatekit_store_open(arg *a) {
    int rc = gatekit_store_open((gatekit_store **)a[0].p, a[1].s, a[2].s);
    if (rc == 0 && a[0].p) gatekit_store_close(*(gatekit_store **)a[0].p);
    return rc;
}
static int call_gatekit_store_close(arg *a) { gatekit_store_close((gatekit_store *)a[0].p); return 0; }
static int call_gatekit_store_path(arg *a) { return gatekit_store_path((const gatekit_store *)a[0].p) ? 0 : -1; }
static int call_gatekit_store_check(arg *a) { return gatekit_store_check((gatekit_store *)a[0].p); }
static int call_eula_hash_file(arg *a) { return eula_hash_file((char *)a[0].p, a[1].s); }
static int call_eula_hash_bytes(arg *a) { return eula_hash_bytes((char *)a[0].p, a[1].p, a[2].n); }
static int call_eula_should_present(arg *a) { return eula_should_present((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_should_present_hash(arg *a) { return eula_should_present_hash((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_accept(arg *a) { return eula_accept((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_decline(arg *a) { return eula_decline((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_history(arg *a) {
    int rc = eula_history((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_eula_history_all(arg *a) {
    int rc = eula_history_all((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_eula_mark_minor_revision(arg *a) { return eula_mark_minor_revision((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_eula_consent_init(arg *a) { return eula_consent_init((gatekit_eula_consent *)a[0].p, (unsigned)a[1].i); }
static int call_eula_accept_with(arg *a) { return eula_accept_with((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s, (const gatekit_eula_consent *)a[4].p); }
static int call_eula_decline_with(arg *a) { return eula_decline_with((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s, (const gatekit_eula_consent *)a[4].p); }
static int call_eula_withdraw(arg *a) { return eula_withdraw((gatekit_store *)a[0].p, a[1].s, a[2].s, (const gatekit_eula_consent *)a[3].p); }
static int call_eula_accept_named(arg *a) {
    return eula_accept_named((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s, a[4].s, (const gatekit_eula_consent *)a[5].p);
}
static int call_eula_publication_init(arg *a) { return eula_publication_init((gatekit_eula_publication *)a[0].p, (unsigned)a[1].i); }
static int call_eula_publish(arg *a) { return eula_publish((gatekit_store *)a[0].p, a[1].s, (const gatekit_eula_publication *)a[2].p); }
static int call_eula_should_present_at(arg *a) {
    return eula_should_present_at((gatekit_eula_presentation *)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].s, a[5].ll);
}
static int call_eula_text(arg *a) { return eula_text((void **)a[0].p, (size_t *)a[1].p, (gatekit_store *)a[2].p, a[3].s, a[4].s); }
static int call_eula_export(arg *a) {
    return eula_export((long long *)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, (unsigned)a[4].i, (gatekit_write_fn)a[5].p, a[6].p);
}
static int call_eula_verify_export(arg *a) { return eula_verify_export((long long *)a[0].p, (gatekit_store *)a[1].p, a[2].s); }
static int export_sink(void *context, const void *bytes, size_t length) { (void)context; (void)bytes; (void)length; return 0; }
static int export_stop(void *context, const void *bytes, size_t length) { (void)context; (void)bytes; (void)length; return 7; }
static int call_eula_accept_from_env(arg *a) {
    return eula_accept_from_env((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s, a[4].s, (const gatekit_eula_consent *)a[5].p);
}

#define R(x) ((const gatekit_receipt *)(x))
static int call_receipt_options_init(arg *a) { return receipt_options_init((gatekit_receipt_options *)a[0].p, (unsigned)a[1].i); }
static int call_receipt_identity(arg *a) { return receipt_identity(R(a[0].p)) ? 0 : -1; }
static int call_receipt_validate(arg *a) {
    int rc = receipt_validate((gatekit_receipt **)a[0].p, a[1].p, a[2].n, (const gatekit_receipt_options *)a[3].p);
    if (rc == 0 && a[0].p) receipt_free(*(gatekit_receipt **)a[0].p);
    return rc;
}
static int call_receipt_validate_file(arg *a) {
    int rc = receipt_validate_file((gatekit_receipt **)a[0].p, a[1].s, (const gatekit_receipt_options *)a[2].p);
    if (rc == 0 && a[0].p) receipt_free(*(gatekit_receipt **)a[0].p);
    return rc;
}
static int call_receipt_free(arg *a) { receipt_free((gatekit_receipt *)a[0].p); return 0; }
static int call_receipt_to_json(arg *a) {
    int rc = receipt_to_json((char **)a[0].p, R(a[1].p));
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_receipt_is_entitled(arg *a) { return receipt_is_entitled(R(a[0].p), a[1].s, a[2].ll); }
static int call_receipt_active_products(arg *a) {
    int rc = receipt_active_products((char **)a[0].p, R(a[1].p), a[2].ll);
    if (rc >= 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_receipt_string(arg *a) { (void)receipt_string(R(a[0].p), a[1].i); return 0; }
static int call_receipt_integer(arg *a) { return receipt_integer((long long *)a[0].p, R(a[1].p), a[2].i); }
static int call_receipt_date_ms(arg *a) { return receipt_date_ms((long long *)a[0].p, R(a[1].p), a[2].i); }
static int call_receipt_bytes(arg *a) { return receipt_bytes((const unsigned char **)a[0].p, (size_t *)a[1].p, R(a[2].p), a[3].i); }
static int call_receipt_is_test_signed(arg *a) { return receipt_is_test_signed(R(a[0].p)); }
static int call_receipt_is_sandbox(arg *a) { return receipt_is_sandbox(R(a[0].p)); }
static int call_receipt_purchase_count(arg *a) { return receipt_purchase_count(R(a[0].p)); }
static int call_receipt_purchase_string(arg *a) { (void)receipt_purchase_string(R(a[0].p), a[1].n, a[2].i); return 0; }
static int call_receipt_purchase_integer(arg *a) { return receipt_purchase_integer((long long *)a[0].p, R(a[1].p), a[2].n, a[3].i); }
static int call_receipt_purchase_date_ms(arg *a) { return receipt_purchase_date_ms((long long *)a[0].p, R(a[1].p), a[2].n, a[3].i); }
static int call_receipt_purchase(arg *a) { return receipt_purchase((gatekit_purchase *)a[0].p, R(a[1].p), a[2].n); }
static int call_receipt_inspect(arg *a) {
    int rc = receipt_inspect((char **)a[0].p, a[1].p, a[2].n);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_receipt_apple_status(arg *a) { return receipt_apple_status(a[0].i) >= 0 ? 0 : -1; }
static int call_gatekit_clear_caches(arg *a) { (void)a; gatekit_clear_caches(); return 0; }
#define J(x) ((const gatekit_jws_options *)(x))
static int call_jws_options_init(arg *a) { return jws_options_init((gatekit_jws_options *)a[0].p, (unsigned)a[1].i); }
static int call_jws_verify(arg *a) {
    int rc = jws_verify((gatekit_jws **)a[0].p, a[1].i, a[2].s, J(a[3].p));
    if (rc == 0 && a[0].p) jws_free(*(gatekit_jws **)a[0].p);
    return rc;
}
static int call_jws_json(arg *a) { return jws_json((const gatekit_jws *)a[0].p) ? 0 : -1; }
static int call_jws_identity(arg *a) { return jws_identity((const gatekit_jws *)a[0].p) ? 0 : -1; }
static int call_jws_is_test_signed(arg *a) { return jws_is_test_signed((const gatekit_jws *)a[0].p); }
static int call_jws_free(arg *a) { jws_free((gatekit_jws *)a[0].p); return 0; }
static int call_jws_options_size(arg *a) { (void)a; return jws_options_size() == sizeof(gatekit_jws_options) ? 0 : -1; }
static int jws_call(int (*f)(char **, const char *, const gatekit_jws_options *), arg *a) {
    int rc = f((char **)a[0].p, a[1].s, J(a[2].p));
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_jws_verify_transaction(arg *a) { return jws_call(jws_verify_transaction, a); }
static int call_jws_verify_renewal_info(arg *a) { return jws_call(jws_verify_renewal_info, a); }
static int call_jws_verify_notification(arg *a) { return jws_call(jws_verify_notification, a); }
static int call_jws_verify_app_transaction(arg *a) { return jws_call(jws_verify_app_transaction, a); }
static int call_jws_test_pki_create(arg *a) { return jws_test_pki_create(a[0].s); }
static int call_jws_test_sign(arg *a) {
    int rc = jws_test_sign((char **)a[0].p, a[1].s, a[2].i, a[3].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_jws_transaction_is_entitled(arg *a) { return jws_transaction_is_entitled(a[0].s, J(a[1].p), a[2].s, a[3].ll); }
static int call_jws_transaction_payload_is_entitled(arg *a) { return jws_transaction_payload_is_entitled(a[0].s, a[1].s, a[2].ll); }
static int call_jws_notification_subject(arg *a) {
    int rc = jws_notification_subject((char **)a[0].p, a[1].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_jws_verify_chain(arg *a) {
    int rc = jws_verify_chain((char **)a[0].p, a[1].s, (const unsigned char *)a[2].p, a[3].n, a[4].ll);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}

static int provider_answer(void *payload, int category) { (void)payload; (void)category; return GATEKIT_PERM_STATE_UNKNOWN; }
static void changed_noop(void *payload, int category, int old_state, int new_state) { (void)payload; (void)category; (void)old_state; (void)new_state; }
#define S(x) ((gatekit_store *)(x))
static int call_perm_category_name(arg *a) { (void)perm_category_name(a[0].i); return 0; }
static int call_perm_category_from_name(arg *a) { return perm_category_from_name(S(a[0].p), a[1].s); }
static int call_perm_state_name(arg *a) { (void)perm_state_name(a[0].i); return 0; }
static int call_perm_allows_prompt(arg *a) { return perm_allows_prompt(a[0].i); }
static int call_ledger_reason_name(arg *a) { (void)ledger_reason_name(a[0].i); return 0; }
static int call_ledger_reason_entitles(arg *a) { return ledger_reason_entitles(a[0].i); }
static int call_perm_set_system_provider(arg *a) { return perm_set_system_provider(S(a[0].p), (gatekit_perm_provider_fn)a[1].p, a[2].p); }
static int call_perm_set_usage_description(arg *a) { return perm_set_usage_description(S(a[0].p), a[1].i, a[2].s); }
static int call_perm_register_category(arg *a) { return perm_register_category(S(a[0].p), a[1].i, a[2].s, a[3].s); }
static int call_perm_state(arg *a) { return perm_state(S(a[0].p), a[1].i); }
static int call_perm_record(arg *a) { return perm_record(S(a[0].p), a[1].i, a[2].i); }
static int call_perm_pending(arg *a) { return perm_pending((int *)a[0].p, (size_t *)a[1].p, S(a[2].p), (const int *)a[3].p, a[4].n); }
static int call_perm_next(arg *a) { return perm_next((int *)a[0].p, S(a[1].p), (const int *)a[2].p, a[3].n, a[4].i); }
static int call_perm_reset(arg *a) { return perm_reset(S(a[0].p), a[1].i); }
static int call_perm_history(arg *a) {
    int rc = perm_history((char **)a[0].p, S(a[1].p), a[2].i);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_perm_list(arg *a) {
    int rc = perm_list((char **)a[0].p, S(a[1].p));
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_perm_subscribe(arg *a) { return perm_subscribe((int *)a[0].p, S(a[1].p), (gatekit_perm_changed_fn)a[2].p, a[3].p); }
static int call_perm_unsubscribe(arg *a) { return perm_unsubscribe(S(a[0].p), a[1].i); }
static int call_perm_refresh(arg *a) { return perm_refresh(S(a[0].p)); }
static int call_perm_watch_start(arg *a) {
    int rc = perm_watch_start(S(a[0].p), a[1].i, a[2].i);
    if (rc == 0 && a[0].p && perm_watch_stop(S(a[0].p)) != 1) return -999;  /* started, so it stops (1) */
    return rc;
}
static int call_perm_watch_stop(arg *a) { return perm_watch_stop(S(a[0].p)); }
static int call_perm_use_portal(arg *a) { return perm_use_portal(S(a[0].p), a[1].s); }
static int call_perm_portal_map(arg *a) { return perm_portal_map(S(a[0].p), a[1].i, a[2].s, a[3].s); }
static int call_perm_portal_status(arg *a) { return perm_portal_status(S(a[0].p)); }

#define LQ(p) ((const gatekit_ledger_query *)(p))
static int call_ledger_query_init(arg *a) { return ledger_query_init((gatekit_ledger_query *)a[0].p, (unsigned)a[1].i); }
static int call_ledger_ingest_notification(arg *a) {
    int rc = ledger_ingest_notification((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, J(a[3].p));
    if (a[0].p) { gatekit_free(*(char **)a[0].p); *(char **)a[0].p = NULL; }
    return rc;
}
static int call_ledger_ingest_transaction(arg *a) {
    int rc = ledger_ingest_transaction((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, J(a[3].p));
    if (a[0].p) { gatekit_free(*(char **)a[0].p); *(char **)a[0].p = NULL; }
    return rc;
}
static int call_ledger_ingest_renewal_info(arg *a) {
    int rc = ledger_ingest_renewal_info((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, J(a[3].p));
    if (a[0].p) { gatekit_free(*(char **)a[0].p); *(char **)a[0].p = NULL; }
    return rc;
}
static int call_ledger_ingest_app_transaction(arg *a) {
    int rc = ledger_ingest_app_transaction((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, J(a[3].p));
    if (a[0].p) { gatekit_free(*(char **)a[0].p); *(char **)a[0].p = NULL; }
    return rc;
}
static int call_ledger_ingest_receipt(arg *a) {
    int rc = ledger_ingest_receipt((char **)a[0].p, (gatekit_store *)a[1].p, a[2].p, a[3].n, (const gatekit_receipt_options *)a[4].p);
    if (a[0].p) { gatekit_free(*(char **)a[0].p); *(char **)a[0].p = NULL; }
    return rc;
}
static int call_ledger_is_entitled(arg *a) {
    return ledger_is_entitled((gatekit_entitlement *)a[0].p, (gatekit_store *)a[1].p, LQ(a[2].p), a[3].s, a[4].s);
}
static int call_ledger_entitlement(arg *a) {
    int rc = ledger_entitlement((char **)a[0].p, (gatekit_store *)a[1].p, LQ(a[2].p), a[3].s, a[4].s);
    if (rc >= 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_active(arg *a) {
    int rc = ledger_active((char **)a[0].p, (gatekit_store *)a[1].p, LQ(a[2].p), a[3].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_subscription_status(arg *a) {
    int rc = ledger_subscription_status((char **)a[0].p, (gatekit_store *)a[1].p, LQ(a[2].p), a[3].s, a[4].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_intro_eligible(arg *a) { return ledger_intro_eligible((gatekit_store *)a[0].p, LQ(a[1].p), a[2].s, a[3].s); }
static int call_ledger_history(arg *a) {
    int rc = ledger_history((char **)a[0].p, (gatekit_store *)a[1].p, LQ(a[2].p), a[3].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_ingest_notification_any(arg *a) {
    int rc = ledger_ingest_notification_any((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s,
                                            (const gatekit_jws_options *const *)a[3].p, a[4].n);
    if (a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_link(arg *a) { return ledger_link((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_ledger_grant(arg *a) {
    int rc = ledger_grant((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].s, a[5].s, a[6].ll, a[7].ll, a[8].s, a[9].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_revoke_grant(arg *a) {
    int rc = ledger_revoke_grant((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].ll, a[5].s, a[6].s);
    if (rc >= 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_stripe_verify_webhook(arg *a) {
    int rc = stripe_verify_webhook((char **)a[0].p, a[1].s, a[2].p, a[3].n, (const char *const *)a[4].p, a[5].n, a[6].i, a[7].ll);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_webhook_secret_generate(arg *a) {
    int rc = webhook_secret_generate((char **)a[0].p);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_webhook_sign(arg *a) {
    int rc = webhook_sign((char **)a[0].p, a[1].s, a[2].ll, a[3].p, a[4].n, (const char *const *)a[5].p, a[6].n);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_endpoint_add(arg *a) {
    int rc = ledger_webhook_endpoint_add((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, (const char *const *)a[3].p, a[4].n, a[5].s, a[6].i);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_endpoint_update(arg *a) {
    int rc = ledger_webhook_endpoint_update((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].i);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_secret_roll(arg *a) {
    int rc = ledger_webhook_secret_roll((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].ll);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_report(arg *a) {
    int rc = ledger_webhook_report((char **)a[0].p, (gatekit_store *)a[1].p);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_metrics(arg *a) {
    int rc = ledger_webhook_metrics((char **)a[0].p, (gatekit_store *)a[1].p);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_replay(arg *a) {
    int rc = ledger_webhook_replay((gatekit_store *)a[0].p, a[1].s, a[2].ll, a[3].ll, a[4].ll, a[5].ll);
    return rc > 0 ? 0 : rc;
}
static int call_ledger_webhook_deliveries(arg *a) {
    int rc = ledger_webhook_deliveries((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].ll, a[5].i);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_delivery_options_init(arg *a) {
    return ledger_webhook_delivery_options_init((gatekit_webhook_delivery_options *)a[0].p, (unsigned)a[1].i);
}
static int call_ledger_webhook_deliver(arg *a) {
    int rc = ledger_webhook_deliver((char **)a[0].p, (gatekit_store *)a[1].p, (const gatekit_webhook_delivery_options *)a[2].p, a[3].i);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_webhook_delivery_start(arg *a) {
    gatekit_webhook_delivery **out = (gatekit_webhook_delivery **)a[0].p;
    int rc = ledger_webhook_delivery_start(out, (gatekit_store *)a[1].p, (const gatekit_webhook_delivery_options *)a[2].p);
    if (rc == 0 && out) {
        int stopped = ledger_webhook_delivery_stop(*out);
        if (stopped != 0) return stopped;
    }
    return rc;
}
/* NULL is the only handle a caller can get wrong without owning one: a no-op. */
static int call_ledger_webhook_delivery_stop(arg *a) { (void)a; return ledger_webhook_delivery_stop(NULL); }
static int call_webhook_verify(arg *a) {
    return webhook_verify((size_t *)a[0].p, a[1].s, a[2].s, a[3].s, a[4].p, a[5].n, (const char *const *)a[6].p, a[7].n, a[8].i, a[9].ll);
}
static int call_ledger_unlink(arg *a) { return ledger_unlink((gatekit_store *)a[0].p, a[1].s, a[2].s, a[3].s); }
static int call_ledger_links(arg *a) {
    int rc = ledger_links((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].s, a[5].ll);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_metrics(arg *a) {
    int rc = ledger_metrics((char **)a[0].p, (gatekit_store *)a[1].p, LQ(a[2].p), a[3].ll, a[4].ll, a[5].i, a[6].i);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_metrics_refresh(arg *a) { return ledger_metrics_refresh((gatekit_store *)a[0].p, LQ(a[1].p)); }
static int call_ledger_report(arg *a) {
    int rc = ledger_report((char **)a[0].p, (gatekit_store *)a[1].p, LQ(a[2].p), a[3].ll, a[4].ll, a[5].i, a[6].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_changes(arg *a) {
    int rc = ledger_changes((char **)a[0].p, (gatekit_store *)a[1].p, a[2].ll, a[3].i);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_wait_changes(arg *a) { return ledger_wait_changes((gatekit_store *)a[0].p, a[1].ll, a[2].i); }
static int call_ledger_sync_options_init(arg *a) {
    return ledger_sync_options_init((gatekit_ledger_sync_options *)a[0].p, (unsigned)a[1].i);
}
static int call_ledger_sync_notifications(arg *a) {
    int rc = ledger_sync_notifications((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_appstore_client *)a[2].p, (const gatekit_ledger_sync_options *)a[3].p);
    if (a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_sync_state(arg *a) {
    int rc = ledger_sync_state((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_refresh(arg *a) {
    int rc = ledger_refresh((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_appstore_client *)a[2].p, (const gatekit_jws_options *)a[3].p, a[4].s);
    if (a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_set_refresher(arg *a) {
    return ledger_set_refresher((gatekit_store *)a[0].p, (gatekit_appstore_client *)a[1].p, (const gatekit_jws_options *)a[2].p);
}
static int call_ledger_declare_catalog(arg *a) { return ledger_declare_catalog((gatekit_store *)a[0].p, a[1].s, a[2].ll); }
static int call_ledger_declare_catalog_report(arg *a) {
    return ledger_declare_catalog_report((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].ll, (unsigned)a[4].i);
}
static int call_ledger_catalog(arg *a) {
    int rc = ledger_catalog((char **)a[0].p, (gatekit_store *)a[1].p, a[2].ll);
    if (rc == 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_ingest_batch(arg *a) {
    int rc = ledger_ingest_batch((char **)a[0].p, (gatekit_store *)a[1].p, a[2].i, (const char *const *)a[3].p, a[4].n, J(a[5].p));
    if (a[0].p) { gatekit_free(*(char **)a[0].p); *(char **)a[0].p = NULL; }
    return rc;
}
#define AK(p) ((const gatekit_appstore_key *)(p))
static int call_appstore_key_load(arg *a) {
    int rc = appstore_key_load((gatekit_appstore_key **)a[0].p, a[1].p, a[2].n, a[3].s, a[4].s, a[5].s);
    if (rc == 0 && a[0].p) appstore_key_free(*(gatekit_appstore_key **)a[0].p);
    return rc;
}
static int call_appstore_key_free(arg *a) { appstore_key_free((gatekit_appstore_key *)a[0].p); return 0; }
static int free_out(int rc, arg *a) {
    if (rc >= 0 && a[0].p) gatekit_free(*(char **)a[0].p);
    return rc;
}
static int call_ledger_ingest_play_subscription(arg *a) {
    return free_out(ledger_ingest_play_subscription((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].p, a[5].n, a[6].ll), a);
}
static int call_ledger_ingest_play_product(arg *a) {
    return free_out(ledger_ingest_play_product((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].p, a[5].n, a[6].ll), a);
}
static int call_ledger_ingest_play_product_v1(arg *a) {
    return free_out(ledger_ingest_play_product_v1((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].s, a[4].s, a[5].p, a[6].n, a[7].ll), a);
}
static int call_ledger_ingest_play_voided(arg *a) {
    return free_out(ledger_ingest_play_voided((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_play_client *)a[2].p, a[3].p, a[4].n), a);
}
static int call_ledger_ingest_play_batch(arg *a) {
    return free_out(ledger_ingest_play_batch((char **)a[0].p, (gatekit_store *)a[1].p, a[2].s, a[3].i, (const char *const *)a[4].p,
                                             (const char *const *)a[5].p, a[6].n, a[7].ll), a);
}
static int call_ledger_play_acknowledge(arg *a) {
    return free_out(ledger_play_acknowledge((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_play_client *)a[2].p, a[3].s), a);
}
static int call_ledger_stripe_options_init(arg *a) {
    return ledger_stripe_options_init((gatekit_ledger_stripe_options *)a[0].p, (unsigned)a[1].i);
}
static int call_ledger_ingest_stripe(arg *a) {
    return free_out(ledger_ingest_stripe((char **)a[0].p, (gatekit_store *)a[1].p, a[2].p, a[3].n, a[4].ll,
                                         (const gatekit_ledger_stripe_options *)a[5].p), a);
}
static int call_ledger_ingest_stripe_batch(arg *a) {
    return free_out(ledger_ingest_stripe_batch((char **)a[0].p, (gatekit_store *)a[1].p, (const char *const *)a[2].p, a[3].n, a[4].ll,
                                               (const gatekit_ledger_stripe_options *)a[5].p), a);
}
static int call_ledger_refresh_stripe(arg *a) {
    return free_out(ledger_refresh_stripe((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_stripe_client *)a[2].p, a[3].s,
                                          (const gatekit_ledger_stripe_options *)a[4].p), a);
}
static int call_ledger_ingest_stripe_webhook(arg *a) {
    return free_out(ledger_ingest_stripe_webhook((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_stripe_client *)a[2].p, a[3].s, a[4].p,
                                                 a[5].n, (const char *const *)a[6].p, a[7].n, a[8].i,
                                                 (const gatekit_ledger_stripe_options *)a[9].p), a);
}
static int call_ledger_set_stripe_refresher(arg *a) {
    return ledger_set_stripe_refresher((gatekit_store *)a[0].p, (gatekit_stripe_client *)a[1].p, (const gatekit_ledger_stripe_options *)a[2].p);
}
static int call_ledger_stripe_sync_options_init(arg *a) {
    return ledger_stripe_sync_options_init((gatekit_ledger_stripe_sync_options *)a[0].p, (unsigned)a[1].i);
}
static int call_ledger_sync_stripe(arg *a) {
    return free_out(ledger_sync_stripe((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_stripe_client *)a[2].p,
                                       (const gatekit_ledger_stripe_sync_options *)a[3].p, (const gatekit_ledger_stripe_options *)a[4].p), a);
}
static int call_ledger_play_sync_options_init(arg *a) {
    return ledger_play_sync_options_init((gatekit_ledger_play_sync_options *)a[0].p, (unsigned)a[1].i);
}
static int call_ledger_sync_play(arg *a) {
    return free_out(ledger_sync_play((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_play_client *)a[2].p,
                                     (const gatekit_ledger_play_sync_options *)a[3].p), a);
}
static int call_ledger_set_play_refresher(arg *a) {
    return ledger_set_play_refresher((gatekit_store *)a[0].p, (gatekit_play_client *)a[1].p);
}
static int call_ledger_ingest_play_push(arg *a) {
    return free_out(ledger_ingest_play_push((char **)a[0].p, (gatekit_store *)a[1].p, (gatekit_play_push_verifier *)a[2].p,
                                            (gatekit_play_client *)a[3].p, a[4].s, a[5].p, a[6].n), a);
}
static int call_appstore_promotional_offer_signature(arg *a) {
    return free_out(appstore_promotional_offer_signature((char **)a[0].p, AK(a[1].p), a[2].s, a[3].s, a[4].s, a[5].s, a[6].ll), a);
}
static int call_appstore_promotional_offer_v2_signature(arg *a) {
    return free_out(appstore_promotional_offer_v2_signature((char **)a[0].p, AK(a[1].p), a[2].s, a[3].s, a[4].s), a);
}
static int call_appstore_intro_eligibility_signature(arg *a) {
    return free_out(appstore_intro_eligibility_signature((char **)a[0].p, AK(a[1].p), a[2].s, a[3].i, a[4].s), a);
}
static int call_appstore_advanced_commerce_signature(arg *a) {
    return free_out(appstore_advanced_commerce_signature((char **)a[0].p, AK(a[1].p), a[2].s), a);
}
static int call_appstore_api_token(arg *a) { return free_out(appstore_api_token((char **)a[0].p, AK(a[1].p), a[2].i), a); }

#define AC(p) ((gatekit_appstore_client *)(p))
#define OS(p) ((char **)(p))
static int free_outs(int rc, void *out, void *decoded) {
    if (out) { gatekit_free(*(char **)out); *(char **)out = NULL; }
    if (decoded) { gatekit_free(*(char **)decoded); *(char **)decoded = NULL; }
    return rc;
}
static int call_appstore_client_options_init(arg *a) {
    return appstore_client_options_init((gatekit_appstore_client_options *)a[0].p, (unsigned)a[1].i);
}
static int call_appstore_client_new(arg *a) {
    int rc = appstore_client_new((gatekit_appstore_client **)a[0].p, AK(a[1].p), (const gatekit_appstore_client_options *)a[2].p);
    if (rc == 0 && a[0].p) appstore_client_free(*(gatekit_appstore_client **)a[0].p);
    return rc;
}
static int call_appstore_client_free(arg *a) { appstore_client_free(AC(a[0].p)); return 0; }
static int call_appstore_get_transaction_info(arg *a) {
    return free_outs(appstore_get_transaction_info(OS(a[2].p), OS(a[3].p), AC(a[0].p), a[1].s), a[2].p, a[3].p);
}
static int call_appstore_get_transaction_history(arg *a) {
    return free_outs(appstore_get_transaction_history(OS(a[5].p), OS(a[6].p), AC(a[0].p), a[1].s, a[2].s, a[3].s, a[4].i), a[5].p, a[6].p);
}
static int call_appstore_get_all_subscription_statuses(arg *a) {
    return free_outs(appstore_get_all_subscription_statuses(OS(a[4].p), OS(a[5].p), AC(a[0].p), a[1].s, (const int *)a[2].p, a[3].n), a[4].p, a[5].p);
}
static int call_appstore_get_refund_history(arg *a) {
    return free_outs(appstore_get_refund_history(OS(a[3].p), OS(a[4].p), AC(a[0].p), a[1].s, a[2].s), a[3].p, a[4].p);
}
static int call_appstore_look_up_order_id(arg *a) {
    return free_outs(appstore_look_up_order_id(OS(a[2].p), OS(a[3].p), AC(a[0].p), a[1].s), a[2].p, a[3].p);
}
static int call_appstore_get_app_transaction_info(arg *a) {
    return free_outs(appstore_get_app_transaction_info(OS(a[2].p), OS(a[3].p), AC(a[0].p), a[1].s), a[2].p, a[3].p);
}
static int call_appstore_get_notification_history(arg *a) {
    return free_outs(appstore_get_notification_history(OS(a[3].p), OS(a[4].p), AC(a[0].p), a[1].s, a[2].s), a[3].p, a[4].p);
}
static int call_appstore_get_test_notification_status(arg *a) {
    return free_outs(appstore_get_test_notification_status(OS(a[2].p), OS(a[3].p), AC(a[0].p), a[1].s), a[2].p, a[3].p);
}
static int call_appstore_upload_image(arg *a) {
    return free_outs(appstore_upload_image(OS(a[5].p), AC(a[0].p), a[1].s, a[2].p, a[3].n, a[4].s), a[5].p, NULL);
}
/* Endpoints of the shapes (out, client), (out, client, s), (out, client, s, s), (out, client, s, s, s); the
 * argument lists keep the client first, the thunks pass the outputs first as the header has them. */
#define API0(name) static int call_##name(arg *a) { return free_outs(name(OS(a[1].p), AC(a[0].p)), a[1].p, NULL); }
#define API1(name) static int call_##name(arg *a) { return free_outs(name(OS(a[2].p), AC(a[0].p), a[1].s), a[2].p, NULL); }
#define API2(name) static int call_##name(arg *a) { return free_outs(name(OS(a[3].p), AC(a[0].p), a[1].s, a[2].s), a[3].p, NULL); }
#define API3(name) static int call_##name(arg *a) { return free_outs(name(OS(a[4].p), AC(a[0].p), a[1].s, a[2].s, a[3].s), a[4].p, NULL); }
API1(appstore_finish_transaction)
API2(appstore_send_consumption_information)
API2(appstore_send_consumption_data)
API2(appstore_set_app_account_token)
API2(appstore_extend_subscription_renewal_date)
API1(appstore_extend_renewal_date_for_all_active_subscribers)
API2(appstore_get_status_of_subscription_renewal_date_extensions)
API0(appstore_request_test_notification)
API1(appstore_delete_image)
API0(appstore_get_image_list)
API2(appstore_upload_message)
API1(appstore_delete_message)
API0(appstore_get_message_list)
API3(appstore_configure_default_message)
API2(appstore_delete_default_message)
API2(appstore_get_default_message)
API1(appstore_configure_realtime_url)
API0(appstore_delete_realtime_url)
API0(appstore_get_realtime_url)
API1(appstore_initiate_performance_test)
API1(appstore_get_performance_test_results)
static int call_receipt_transaction_id(arg *a) { return free_out(receipt_transaction_id((char **)a[0].p, a[1].p, a[2].n), a); }
static int call_receipt_legacy_transaction_id(arg *a) { return free_out(receipt_legacy_transaction_id((char **)a[0].p, a[1].s), a); }
static int call_jws_verify_realtime_request(arg *a) { return free_out(jws_verify_realtime_request((char **)a[0].p, a[1].s, J(a[2].p)), a); }
static int call_receipt_intro_eligible(arg *a) { return receipt_intro_eligible(R(a[0].p), (const char *const *)a[1].p, a[2].n); }

/* Returns-pointer / void functions still run every variant: only "no crash" is asserted
 * for them, plus their documented NULL answers in test_documented_null_answers(). */
#define PC(p) ((gatekit_play_client *)(p))
static int call_play_client_options_init(arg *a) { return play_client_options_init((gatekit_play_client_options *)a[0].p, (unsigned)a[1].i); }
static int call_play_client_new(arg *a) {
    int rc = play_client_new((gatekit_play_client **)a[0].p, (const gatekit_play_client_options *)a[1].p);
    if (rc == 0 && a[0].p) play_client_free(*(gatekit_play_client **)a[0].p);
    return rc;
}
static int call_play_client_free(arg *a) { play_client_free(PC(a[0].p)); return 0; }
#define SC(p) ((gatekit_stripe_client *)(p))
static int call_stripe_client_options_init(arg *a) { return stripe_client_options_init((gatekit_stripe_client_options *)a[0].p, (unsigned)a[1].i); }
static int call_stripe_client_new(arg *a) {
    int rc = stripe_client_new((gatekit_stripe_client **)a[0].p, (const gatekit_stripe_client_options *)a[1].p);
    if (rc == 0 && a[0].p) stripe_client_free(*(gatekit_stripe_client **)a[0].p);
    return rc;
}
static int call_stripe_client_free(arg *a) { stripe_client_free(SC(a[0].p)); return 0; }
static int call_stripe_client_is_test(arg *a) {
    int rc = stripe_client_is_test(SC(a[0].p));
    return rc < 0 ? rc : 0;
}
static int call_stripe_api_version(arg *a) { (void)a; return stripe_api_version() ? 0 : -1; }
static int call_stripe_get(arg *a) { return free_outs(stripe_get(OS(a[0].p), SC(a[1].p), a[2].s, a[3].s), a[0].p, NULL); }
static int call_stripe_post(arg *a) { return free_outs(stripe_post(OS(a[0].p), SC(a[1].p), a[2].s, a[3].s), a[0].p, NULL); }
static int call_stripe_list(arg *a) { return free_outs(stripe_list(OS(a[0].p), SC(a[1].p), a[2].s, a[3].s, a[4].i), a[0].p, NULL); }
static int call_play_subscription_get(arg *a) { return free_outs(play_subscription_get(OS(a[0].p), PC(a[1].p), a[2].s), a[0].p, NULL); }
static int call_play_subscription_revoke(arg *a) { return free_outs(play_subscription_revoke(OS(a[0].p), PC(a[1].p), a[2].s, a[3].s), a[0].p, NULL); }
static int call_play_subscription_cancel(arg *a) { return free_outs(play_subscription_cancel(OS(a[0].p), PC(a[1].p), a[2].s, a[3].s), a[0].p, NULL); }
static int call_play_subscription_defer(arg *a) { return free_outs(play_subscription_defer(OS(a[0].p), PC(a[1].p), a[2].s, a[3].s), a[0].p, NULL); }
static int call_play_subscription_acknowledge(arg *a) {
    return free_outs(play_subscription_acknowledge(OS(a[0].p), PC(a[1].p), a[2].s, a[3].s, a[4].s), a[0].p, NULL);
}
static int call_play_product_get(arg *a) { return free_outs(play_product_get(OS(a[0].p), PC(a[1].p), a[2].s, a[3].s), a[0].p, NULL); }
static int call_play_product_get_v2(arg *a) { return free_outs(play_product_get_v2(OS(a[0].p), PC(a[1].p), a[2].s), a[0].p, NULL); }
static int call_play_product_acknowledge(arg *a) {
    return free_outs(play_product_acknowledge(OS(a[0].p), PC(a[1].p), a[2].s, a[3].s, a[4].s), a[0].p, NULL);
}
static int call_play_product_consume(arg *a) { return free_outs(play_product_consume(OS(a[0].p), PC(a[1].p), a[2].s, a[3].s), a[0].p, NULL); }
static int call_play_voided_purchases_list(arg *a) { return free_outs(play_voided_purchases_list(OS(a[0].p), PC(a[1].p), a[2].s), a[0].p, NULL); }
static int call_play_purchase_is_test(arg *a) { return play_purchase_is_test(a[0].p, a[1].n, a[2].i); }
static int call_play_order_get(arg *a) { return free_outs(play_order_get(OS(a[0].p), PC(a[1].p), a[2].s), a[0].p, NULL); }
static int call_play_orders_batch_get(arg *a) {
    return free_outs(play_orders_batch_get(OS(a[0].p), PC(a[1].p), (const char *const *)a[2].p, a[3].n), a[0].p, NULL);
}
static int call_play_push_options_init(arg *a) { return play_push_options_init((gatekit_play_push_options *)a[0].p, (unsigned)a[1].i); }
static int call_play_push_verifier_new(arg *a) {
    int rc = play_push_verifier_new((gatekit_play_push_verifier **)a[0].p, (const gatekit_play_push_options *)a[1].p);
    if (rc == 0 && a[0].p) play_push_verifier_free(*(gatekit_play_push_verifier **)a[0].p);
    return rc;
}
static int call_play_push_verifier_free(arg *a) { play_push_verifier_free((gatekit_play_push_verifier *)a[0].p); return 0; }
static int call_play_verify_push(arg *a) {
    return free_out(play_verify_push((char **)a[0].p, (gatekit_play_push_verifier *)a[1].p, a[2].s, a[3].p, a[4].n), a);
}
static int call_play_test_service_account(arg *a) { return free_out(play_test_service_account((char **)a[0].p, a[1].s, a[2].s), a); }
static int call_play_test_issuer_new(arg *a) {
    int rc = play_test_issuer_new((gatekit_play_test_issuer **)a[0].p, a[1].s);
    if (rc == 0 && a[0].p) play_test_issuer_free(*(gatekit_play_test_issuer **)a[0].p);
    return rc;
}
static int call_play_test_issuer_free(arg *a) { play_test_issuer_free((gatekit_play_test_issuer *)a[0].p); return 0; }
static int call_play_test_issuer_keys(arg *a) { return free_out(play_test_issuer_keys((char **)a[0].p, (const gatekit_play_test_issuer *)a[1].p), a); }
static int call_play_test_issuer_sign_push(arg *a) {
    return free_out(play_test_issuer_sign_push((char **)a[0].p, (const gatekit_play_test_issuer *)a[1].p, a[2].s, a[3].s, a[4].i), a);
}

static const api_entry api[] = {
    {"gatekit_version", call_gatekit_version, {END}, 1},
    {"gatekit_version_number", call_gatekit_version_number, {END}, 0},
    {"gatekit_strerror", call_gatekit_strerror, {INT, END}, 1},
    {"gatekit_last_error", call_gatekit_last_error, {END}, 1},
    {"gatekit_free", call_gatekit_free, {FREE_PTR, END}, 1},
    {"gatekit_hash_hex_size", call_gatekit_hash_hex_size, {END}, 0},
    {"gatekit_store_open", call_gatekit_store_open, {OUT_PTR, OPT_PATH, APP_ID, END}, 0},
    {"gatekit_store_open_flags", call_gatekit_store_open_flags, {OUT_PTR, OPT_PATH, APP_ID, INT, END}, 0},
    {"gatekit_store_open_listening", call_gatekit_store_open_listening, {OUT_PTR, OPT_PATH, APP_ID, INT, OPT_STR, END}, 0},
    {"gatekit_store_close", call_gatekit_store_close, {FREE_PTR, END}, 1},
    {"gatekit_store_path", call_gatekit_store_path, {FREE_PTR, END}, 1},
    {"gatekit_store_check", call_gatekit_store_check, {STORE, END}, 0},
    {"eula_hash_file", call_eula_hash_file, {OUT_HASH, PATH, END}, 0},
    {"eula_hash_bytes", call_eula_hash_bytes, {OUT_HASH, DATA, LEN, END}, 0},
    {"eula_should_present", call_eula_should_present, {STORE, STR, PATH, OPT_BYTES, END}, 0},
    {"eula_should_present_hash", call_eula_should_present_hash, {STORE, STR, HASH, OPT_BYTES, END}, 0},
    {"eula_accept", call_eula_accept, {STORE, STR, HASH, OPT_BYTES, END}, 0},
    {"eula_decline", call_eula_decline, {STORE, STR, HASH, OPT_BYTES, END}, 0},
    {"eula_history", call_eula_history, {OUT_PTR, STORE, OPT_STR, OPT_BYTES, END}, 0},
    {"eula_history_all", call_eula_history_all, {OUT_PTR, STORE, OPT_STR, END}, 0},
    {"eula_mark_minor_revision", call_eula_mark_minor_revision, {STORE, STR, HASH, HASH, END}, 0},
    {"eula_consent_init", call_eula_consent_init, {OPTS_INIT, INT, END}, 0},
    {"eula_accept_with", call_eula_accept_with, {STORE, STR, HASH, OPT_BYTES, CONSENT, END}, 0},
    {"eula_decline_with", call_eula_decline_with, {STORE, STR, HASH, OPT_BYTES, CONSENT, END}, 0},
    {"eula_withdraw", call_eula_withdraw, {STORE, STR, OPT_BYTES, CONSENT, END}, 0},
    {"eula_accept_named", call_eula_accept_named, {STORE, STR, HASH, OPT_BYTES, NAMES, CONSENT, END}, 0},
    {"eula_accept_from_env", call_eula_accept_from_env, {STORE, STR, HASH, OPT_BYTES, ENV_VAR, CONSENT, END}, 0},
    {"eula_publication_init", call_eula_publication_init, {OPTS_INIT, INT, END}, 0},
    {"eula_publish", call_eula_publish, {STORE, STR, PUBLICATION, END}, 0},
    {"eula_should_present_at", call_eula_should_present_at, {PRESENT_OUT, STORE, STR, OPT_BYTES, OPT_STR, AT_MS, END}, 0},
    {"eula_text", call_eula_text, {OUT_PTR, OUT_SIZE, STORE, STR, HASH, END}, 0},
    {"eula_export", call_eula_export, {OPT_LL_OUT, STORE, OPT_STR, OPT_BYTES, EFLAGS, WRITE_FN, PAYLOAD, END}, 0},
    {"eula_verify_export", call_eula_verify_export, {OPT_LL_OUT, STORE, PATH, END}, 0},
    {"receipt_options_init", call_receipt_options_init, {OPTS_INIT, INT, END}, 0},
    {"receipt_validate", call_receipt_validate, {OUT_PTR, R_DATA, LEN, R_OPTIONS, END}, 0},
    {"receipt_validate_file", call_receipt_validate_file, {OUT_PTR, PATH, R_OPTIONS, END}, 0},
    {"receipt_free", call_receipt_free, {FREE_PTR, END}, 1},
    {"receipt_to_json", call_receipt_to_json, {OUT_PTR, RECEIPT, END}, 0},
    {"receipt_is_entitled", call_receipt_is_entitled, {RECEIPT, PRODUCT, AT_MS, END}, 0},
    {"receipt_active_products", call_receipt_active_products, {OUT_PTR, RECEIPT, AT_MS, END}, 0},
    {"receipt_string", call_receipt_string, {RECEIPT, ATTR, END}, 1},
    {"receipt_integer", call_receipt_integer, {OUT_LL, RECEIPT, ATTR, END}, 0},
    {"receipt_date_ms", call_receipt_date_ms, {OUT_LL, RECEIPT, ATTR, END}, 0},
    {"receipt_bytes", call_receipt_bytes, {OUT_BYTES, OUT_SIZE, RECEIPT, ATTR, END}, 0},
    {"receipt_is_test_signed", call_receipt_is_test_signed, {RECEIPT, END}, 0},
    {"receipt_is_sandbox", call_receipt_is_sandbox, {RECEIPT, END}, 0},
    {"receipt_identity", call_receipt_identity, {RECEIPT, END}, 1},
    {"receipt_purchase_count", call_receipt_purchase_count, {RECEIPT, END}, 0},
    {"receipt_purchase_string", call_receipt_purchase_string, {RECEIPT, INDEX, ATTR, END}, 1},
    {"receipt_purchase_integer", call_receipt_purchase_integer, {OUT_LL, RECEIPT, INDEX, ATTR, END}, 0},
    {"receipt_purchase_date_ms", call_receipt_purchase_date_ms, {OUT_LL, RECEIPT, INDEX, ATTR, END}, 0},
    {"receipt_purchase", call_receipt_purchase, {PURCHASE, RECEIPT, INDEX, END}, 0},
    {"receipt_inspect", call_receipt_inspect, {OUT_PTR, R_DATA, LEN, END}, 0},
    {"receipt_apple_status", call_receipt_apple_status, {INT, END}, 1},
    {"gatekit_clear_caches", call_gatekit_clear_caches, {END}, 1},
    {"jws_options_init", call_jws_options_init, {OPTS_INIT, INT, END}, 0},
    {"jws_verify", call_jws_verify, {OUT_PTR, JWS_KIND, JWS, J_OPTIONS, END}, 0},
    {"jws_json", call_jws_json, {SIGNED, END}, 1},
    {"jws_identity", call_jws_identity, {SIGNED, END}, 1},
    {"jws_is_test_signed", call_jws_is_test_signed, {SIGNED, END}, 0},
    {"jws_free", call_jws_free, {FREE_PTR, END}, 1},
    {"jws_options_size", call_jws_options_size, {END}, 0},
    {"jws_verify_transaction", call_jws_verify_transaction, {OUT_PTR, JWS, J_OPTIONS, END}, 0},
    {"jws_verify_renewal_info", call_jws_verify_renewal_info, {OUT_PTR, JWS, J_OPTIONS, END}, 0},
    {"jws_verify_notification", call_jws_verify_notification, {OUT_PTR, JWS, J_OPTIONS, END}, 0},
    {"jws_verify_app_transaction", call_jws_verify_app_transaction, {OUT_PTR, JWS, J_OPTIONS, END}, 0},
    {"jws_test_pki_create", call_jws_test_pki_create, {PKI_DIR, END}, 0},
    {"jws_test_sign", call_jws_test_sign, {OUT_PTR, PKI_DIR, JWS_KIND, PAYLOAD_JSON, END}, 0},
    {"jws_transaction_is_entitled", call_jws_transaction_is_entitled, {JWS, J_OPTIONS, OPT_PRODUCT, AT_MS, END}, 0},
    {"jws_transaction_payload_is_entitled", call_jws_transaction_payload_is_entitled, {PAYLOAD_JSON, OPT_PRODUCT, AT_MS, END}, 0},
    {"jws_notification_subject", call_jws_notification_subject, {OUT_PTR, PAYLOAD_JSON, END}, 0},
    {"jws_verify_chain", call_jws_verify_chain, {OUT_PTR, STR, DATA, LEN, AT_MS, END}, 0},
    {"perm_category_name", call_perm_category_name, {CATEGORY, END}, 1},
    {"perm_category_from_name", call_perm_category_from_name, {OPT_STORE, PERM_NAME, END}, 0},
    {"perm_state_name", call_perm_state_name, {INT, END}, 1},
    {"perm_allows_prompt", call_perm_allows_prompt, {INT, END}, 0},
    {"ledger_reason_name", call_ledger_reason_name, {INT, END}, 1},
    {"ledger_reason_entitles", call_ledger_reason_entitles, {INT, END}, 0},
    {"perm_set_system_provider", call_perm_set_system_provider, {STORE, PROVIDER, PAYLOAD, END}, 0},
    {"perm_set_usage_description", call_perm_set_usage_description, {STORE, CATEGORY, USAGE, END}, 0},
    {"perm_register_category", call_perm_register_category, {STORE, CATEGORY, PERM_NAME, USAGE, END}, 0},
    {"perm_state", call_perm_state, {STORE, CATEGORY, END}, 0},
    {"perm_record", call_perm_record, {STORE, CATEGORY, DECISION, END}, 0},
    {"perm_pending", call_perm_pending, {OUT_CATS, OUT_SIZE, STORE, CATS, CAT_COUNT, END}, 0},
    {"perm_next", call_perm_next, {OUT_INT, STORE, CATS, CAT_COUNT, CATEGORY, END}, 0},
    {"perm_reset", call_perm_reset, {STORE, CATEGORY, END}, 0},
    {"perm_history", call_perm_history, {OUT_PTR, STORE, CATEGORY, END}, 0},
    {"perm_list", call_perm_list, {OUT_PTR, STORE, END}, 0},
    {"perm_subscribe", call_perm_subscribe, {OUT_INT, STORE, CHANGED, PAYLOAD, END}, 0},
    {"perm_unsubscribe", call_perm_unsubscribe, {STORE, TOKEN, END}, 0},
    {"perm_refresh", call_perm_refresh, {STORE, END}, 0},
    {"perm_watch_start", call_perm_watch_start, {STORE, INTERVAL, WFLAGS, END}, 0},
    {"perm_watch_stop", call_perm_watch_stop, {STORE, END}, 0},
    {"perm_use_portal", call_perm_use_portal, {STORE, OPT_PRODUCT, END}, 0},
    {"perm_portal_map", call_perm_portal_map, {STORE, CATEGORY, OPT_PRODUCT, OPT_PRODUCT, END}, 0},
    {"perm_portal_status", call_perm_portal_status, {STORE, END}, 0},
    {"ledger_query_init", call_ledger_query_init, {OPTS_INIT, INT, END}, 0},
    {"ledger_ingest_notification", call_ledger_ingest_notification, {OPT_OUT, STORE, JWS, J_OPTIONS, END}, 0},
    {"ledger_ingest_transaction", call_ledger_ingest_transaction, {OPT_OUT, STORE, JWS, J_OPTIONS, END}, 0},
    {"ledger_ingest_renewal_info", call_ledger_ingest_renewal_info, {OPT_OUT, STORE, JWS, J_OPTIONS, END}, 0},
    {"ledger_ingest_app_transaction", call_ledger_ingest_app_transaction, {OPT_OUT, STORE, JWS, J_OPTIONS, END}, 0},
    {"ledger_ingest_receipt", call_ledger_ingest_receipt, {OPT_OUT, STORE, R_DATA, LEN, R_OPTIONS, END}, 0},
    {"ledger_is_entitled", call_ledger_is_entitled, {ENT_OUT, STORE, L_QUERY, STR, PRODUCT, END}, 0},
    {"ledger_entitlement", call_ledger_entitlement, {OUT_PTR, STORE, L_QUERY, STR, PRODUCT, END}, 0},
    {"ledger_active", call_ledger_active, {OUT_PTR, STORE, L_QUERY, STR, END}, 0},
    {"ledger_declare_catalog", call_ledger_declare_catalog, {STORE, JSON_OBJ, AT_MS, END}, 0},
    {"ledger_declare_catalog_report", call_ledger_declare_catalog_report, {OUT_PTR, STORE, JSON_OBJ, AT_MS, CFLAGS, END}, 0},
    {"ledger_catalog", call_ledger_catalog, {OUT_PTR, STORE, AT_MS, END}, 0},
    {"ledger_ingest_play_subscription", call_ledger_ingest_play_subscription, {OPT_OUT, STORE, STR, STR, DATA, LEN, AT_MS, END}, 0},
    {"ledger_ingest_play_product", call_ledger_ingest_play_product, {OPT_OUT, STORE, STR, STR, DATA, LEN, AT_MS, END}, 0},
    {"ledger_ingest_play_product_v1", call_ledger_ingest_play_product_v1, {OPT_OUT, STORE, STR, STR, STR, DATA, LEN, AT_MS}, 0},
    {"ledger_ingest_play_push", call_ledger_ingest_play_push, {OPT_OUT, STORE, PUSH_V, P_CLIENT, OPT_STR, DATA, LEN, END}, 0},
    {"ledger_ingest_play_voided", call_ledger_ingest_play_voided, {OPT_OUT, STORE, P_CLIENT, DATA, LEN, END}, 0},
    {"ledger_ingest_play_batch", call_ledger_ingest_play_batch, {OPT_OUT, STORE, STR, INT, IDS, IDS, ID_COUNT, AT_MS}, 0},
    {"ledger_play_acknowledge", call_ledger_play_acknowledge, {OPT_OUT, STORE, P_CLIENT, STR, END}, 0},
    {"ledger_play_sync_options_init", call_ledger_play_sync_options_init, {OPTS_INIT, INT, END}, 0},
    {"ledger_stripe_options_init", call_ledger_stripe_options_init, {OPTS_INIT, INT, END}, 0},
    {"ledger_ingest_stripe", call_ledger_ingest_stripe, {OPT_OUT, STORE, DATA, LEN, AT_MS, ST_OPTIONS, END}, 0},
    {"ledger_ingest_stripe_batch", call_ledger_ingest_stripe_batch, {OPT_OUT, STORE, IDS, ID_COUNT, AT_MS, ST_OPTIONS, END}, 0},
    {"ledger_stripe_sync_options_init", call_ledger_stripe_sync_options_init, {OPTS_INIT, INT, END}, 0},
    {"ledger_set_stripe_refresher", call_ledger_set_stripe_refresher, {STORE, OPT_S_CLIENT, ST_OPTIONS, END}, 0},
    {"ledger_sync_stripe", call_ledger_sync_stripe, {OPT_OUT, STORE, S_CLIENT, SS_OPTIONS, ST_OPTIONS, END}, 0},
    {"ledger_refresh_stripe", call_ledger_refresh_stripe, {OPT_OUT, STORE, S_CLIENT, STR, ST_OPTIONS, END}, 0},
    {"ledger_ingest_stripe_webhook", call_ledger_ingest_stripe_webhook,
     {OPT_OUT, STORE, S_CLIENT, STR, DATA, LEN, IDS, ID_COUNT, INT, ST_OPTIONS}, 0},
    {"ledger_sync_play", call_ledger_sync_play, {OPT_OUT, STORE, P_CLIENT, PS_OPTIONS, END}, 0},
    {"ledger_set_play_refresher", call_ledger_set_play_refresher, {STORE, OPT_P_CLIENT, END}, 0},
    {"ledger_link", call_ledger_link, {STORE, STR, STR, STR, END}, 0},
    {"ledger_unlink", call_ledger_unlink, {STORE, STR, STR, STR, END}, 0},
    {"stripe_verify_webhook", call_stripe_verify_webhook, {OPT_OUT, STR, DATA, LEN, IDS, ID_COUNT, INT, AT_MS, END}, 0},
    {"webhook_secret_generate", call_webhook_secret_generate, {OUT_PTR, END}, 0},
    {"webhook_sign", call_webhook_sign, {OUT_PTR, STR, AT_MS, DATA, LEN, IDS, ID_COUNT, END}, 0},
    /* A missing header is a verdict (GATEKIT_EWEBHOOK_HEADER), not a NULL argument. */
    {"webhook_verify", call_webhook_verify, {OPT_SIZE_OUT, OPT_STR, OPT_STR, OPT_STR, DATA, LEN, IDS, ID_COUNT, INT, AT_MS}, 0},
    {"ledger_webhook_endpoint_add", call_ledger_webhook_endpoint_add, {OUT_PTR, STORE, STR, IDS, ID_COUNT, OPT_STR, INT, END}, 0},
    {"ledger_webhook_endpoint_update", call_ledger_webhook_endpoint_update, {OUT_PTR, STORE, STR, JSON_OBJ, INT, END}, 0},
    {"ledger_webhook_secret_roll", call_ledger_webhook_secret_roll, {OUT_PTR, STORE, STR, AT_MS, END}, 0},
    {"ledger_webhook_report", call_ledger_webhook_report, {OUT_PTR, STORE, END}, 0},
    {"ledger_webhook_metrics", call_ledger_webhook_metrics, {OUT_PTR, STORE, END}, 0},
    {"ledger_webhook_replay", call_ledger_webhook_replay, {STORE, STR, AT_MS, AT_MS, AT_MS, AT_MS, END}, 0},
    {"ledger_webhook_deliveries", call_ledger_webhook_deliveries, {OUT_PTR, STORE, STR, OPT_STR, AT_MS, INT, END}, 0},
    {"ledger_webhook_delivery_options_init", call_ledger_webhook_delivery_options_init, {OPTS_INIT, INT, END}, 0},
    {"ledger_webhook_deliver", call_ledger_webhook_deliver, {OPT_OUT, STORE, WD_OPTIONS, INTERVAL, END}, 0},
    {"ledger_webhook_delivery_start", call_ledger_webhook_delivery_start, {OUT_PTR, STORE, WD_OPTIONS, END}, 0},
    {"ledger_webhook_delivery_stop", call_ledger_webhook_delivery_stop, {END}, 0},
    {"ledger_grant", call_ledger_grant, {OUT_PTR, STORE, STR, STR, OPT_STR, OPT_STR, AT_MS, AT_MS, STR, OPT_STR}, 0},
    {"ledger_revoke_grant", call_ledger_revoke_grant, {OUT_PTR, STORE, STR, STR, AT_MS, STR, OPT_STR, END}, 0},
    {"ledger_links", call_ledger_links, {OUT_PTR, STORE, STR, OPT_STR, OPT_STR, AT_MS, END}, 0},
    {"ledger_changes", call_ledger_changes, {OUT_PTR, STORE, AT_MS, INT, END}, 0},
    {"ledger_metrics", call_ledger_metrics, {OUT_PTR, STORE, L_QUERY, AT_MS, AT_MS, INT, INT, END}, 0},
    {"ledger_metrics_refresh", call_ledger_metrics_refresh, {STORE, L_QUERY, END}, 0},
    {"ledger_report", call_ledger_report, {OUT_PTR, STORE, L_QUERY, AT_MS, AT_MS, INT, OPT_STR, END}, 0},
    {"ledger_wait_changes", call_ledger_wait_changes, {STORE, AT_MS, INTERVAL, END}, 0},
    {"ledger_sync_options_init", call_ledger_sync_options_init, {OPTS_INIT, INT, END}, 0},
    {"ledger_sync_notifications", call_ledger_sync_notifications, {OPT_OUT, STORE, AS_CLIENT, S_OPTIONS, END}, 0},
    {"ledger_sync_state", call_ledger_sync_state, {OUT_PTR, STORE, STR, END}, 0},
    {"ledger_refresh", call_ledger_refresh, {OPT_OUT, STORE, AS_CLIENT, J_OPTIONS, STR, END}, 0},
    {"ledger_set_refresher", call_ledger_set_refresher, {STORE, OPT_CLIENT, J_OPTIONS, END}, 0},
    {"ledger_subscription_status", call_ledger_subscription_status, {OUT_PTR, STORE, L_QUERY, STR, OPT_STR, END}, 0},
    {"ledger_intro_eligible", call_ledger_intro_eligible, {STORE, L_QUERY, STR, STR, END}, 0},
    {"ledger_history", call_ledger_history, {OUT_PTR, STORE, L_QUERY, OPT_STR, END}, 0},
    {"receipt_intro_eligible", call_receipt_intro_eligible, {RECEIPT, IDS, ID_COUNT, END}, 0},
    {"ledger_ingest_notification_any", call_ledger_ingest_notification_any, {OPT_OUT, STORE, JWS, J_OPTS_LIST, J_OPTS_COUNT, END}, 0},
    {"ledger_ingest_batch", call_ledger_ingest_batch, {OPT_OUT, STORE, JWS_KIND, JWS_LIST, JWS_COUNT, J_OPTIONS, END}, 0},
    {"appstore_key_load", call_appstore_key_load, {OUT_PTR, PEM, LEN, STR, OPT_STR, STR, END}, 0},
    {"appstore_key_free", call_appstore_key_free, {FREE_PTR, END}, 1},
    {"appstore_promotional_offer_signature", call_appstore_promotional_offer_signature, {OUT_PTR, AS_KEY, STR, STR, OPT_STR, NONCE, AT_MS, END}, 0},
    {"appstore_promotional_offer_v2_signature", call_appstore_promotional_offer_v2_signature, {OUT_PTR, AS_KEY, STR, STR, OPT_STR, END}, 0},
    {"appstore_intro_eligibility_signature", call_appstore_intro_eligibility_signature, {OUT_PTR, AS_KEY, STR, INT, STR, END}, 0},
    {"appstore_advanced_commerce_signature", call_appstore_advanced_commerce_signature, {OUT_PTR, AS_KEY, JSON_OBJ, END}, 0},
    {"appstore_api_token", call_appstore_api_token, {OUT_PTR, AS_KEY, INT, END}, 0},
    {"receipt_transaction_id", call_receipt_transaction_id, {OUT_PTR, R_DATA, LEN, END}, 0},
    {"receipt_legacy_transaction_id", call_receipt_legacy_transaction_id, {OUT_PTR, STR, END}, 0},
    {"jws_verify_realtime_request", call_jws_verify_realtime_request, {OUT_PTR, JWS, J_OPTIONS, END}, 0},
    {"appstore_client_options_init", call_appstore_client_options_init, {OPTS_INIT, INT, END}, 0},
    {"appstore_client_new", call_appstore_client_new, {OUT_PTR, AS_KEY, C_OPTIONS, END}, 0},
    {"appstore_client_free", call_appstore_client_free, {FREE_PTR, END}, 1},
    {"appstore_get_transaction_info", call_appstore_get_transaction_info, {AS_CLIENT, STR, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_get_transaction_history", call_appstore_get_transaction_history, {AS_CLIENT, STR, OPT_STR, OPT_JSON, INT, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_get_all_subscription_statuses", call_appstore_get_all_subscription_statuses, {AS_CLIENT, STR, CATS, CAT_COUNT, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_get_refund_history", call_appstore_get_refund_history, {AS_CLIENT, STR, OPT_STR, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_look_up_order_id", call_appstore_look_up_order_id, {AS_CLIENT, STR, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_get_app_transaction_info", call_appstore_get_app_transaction_info, {AS_CLIENT, STR, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_finish_transaction", call_appstore_finish_transaction, {AS_CLIENT, STR, OPT_OUT, END}, 0},
    {"appstore_send_consumption_information", call_appstore_send_consumption_information, {AS_CLIENT, STR, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_send_consumption_data", call_appstore_send_consumption_data, {AS_CLIENT, STR, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_set_app_account_token", call_appstore_set_app_account_token, {AS_CLIENT, STR, OPT_JSON, OPT_OUT, END}, 0},
    {"appstore_extend_subscription_renewal_date", call_appstore_extend_subscription_renewal_date, {AS_CLIENT, STR, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_extend_renewal_date_for_all_active_subscribers", call_appstore_extend_renewal_date_for_all_active_subscribers, {AS_CLIENT, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_get_status_of_subscription_renewal_date_extensions", call_appstore_get_status_of_subscription_renewal_date_extensions, {AS_CLIENT, STR, STR, OPT_OUT, END}, 0},
    {"appstore_get_notification_history", call_appstore_get_notification_history, {AS_CLIENT, OPT_STR, JSON_OBJ, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_request_test_notification", call_appstore_request_test_notification, {AS_CLIENT, OPT_OUT, END}, 0},
    {"appstore_get_test_notification_status", call_appstore_get_test_notification_status, {AS_CLIENT, STR, OPT_OUT, OPT_OUT, END}, 0},
    {"appstore_upload_image", call_appstore_upload_image, {AS_CLIENT, NONCE, DATA, LEN, OPT_STR, OPT_OUT, END}, 0},
    {"appstore_delete_image", call_appstore_delete_image, {AS_CLIENT, NONCE, OPT_OUT, END}, 0},
    {"appstore_get_image_list", call_appstore_get_image_list, {AS_CLIENT, OPT_OUT, END}, 0},
    {"appstore_upload_message", call_appstore_upload_message, {AS_CLIENT, NONCE, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_delete_message", call_appstore_delete_message, {AS_CLIENT, NONCE, OPT_OUT, END}, 0},
    {"appstore_get_message_list", call_appstore_get_message_list, {AS_CLIENT, OPT_OUT, END}, 0},
    {"appstore_configure_default_message", call_appstore_configure_default_message, {AS_CLIENT, STR, STR, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_delete_default_message", call_appstore_delete_default_message, {AS_CLIENT, STR, STR, OPT_OUT, END}, 0},
    {"appstore_get_default_message", call_appstore_get_default_message, {AS_CLIENT, STR, STR, OPT_OUT, END}, 0},
    {"appstore_configure_realtime_url", call_appstore_configure_realtime_url, {AS_CLIENT, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_delete_realtime_url", call_appstore_delete_realtime_url, {AS_CLIENT, OPT_OUT, END}, 0},
    {"appstore_get_realtime_url", call_appstore_get_realtime_url, {AS_CLIENT, OPT_OUT, END}, 0},
    {"appstore_initiate_performance_test", call_appstore_initiate_performance_test, {AS_CLIENT, JSON_OBJ, OPT_OUT, END}, 0},
    {"appstore_get_performance_test_results", call_appstore_get_performance_test_results, {AS_CLIENT, STR, OPT_OUT, END}, 0},
    {"play_client_options_init", call_play_client_options_init, {OPTS_INIT, INT, END}, 0},
    {"play_client_new", call_play_client_new, {OUT_PTR, P_OPTIONS, END}, 0},
    {"play_client_free", call_play_client_free, {FREE_PTR, END}, 1},
    {"stripe_client_options_init", call_stripe_client_options_init, {OPTS_INIT, INT, END}, 0},
    {"stripe_client_new", call_stripe_client_new, {OUT_PTR, SC_OPTIONS, END}, 0},
    {"stripe_client_free", call_stripe_client_free, {FREE_PTR, END}, 1},
    {"stripe_client_is_test", call_stripe_client_is_test, {S_CLIENT, END}, 0},
    {"stripe_api_version", call_stripe_api_version, {END}, 1},
    {"stripe_get", call_stripe_get, {OPT_OUT, S_CLIENT, STR, OPT_STR, END}, 0},
    {"stripe_post", call_stripe_post, {OPT_OUT, S_CLIENT, STR, OPT_STR, END}, 0},
    {"stripe_list", call_stripe_list, {OPT_OUT, S_CLIENT, STR, OPT_STR, INT, END}, 0},
    {"play_subscription_get", call_play_subscription_get, {OPT_OUT, P_CLIENT, STR, END}, 0},
    {"play_subscription_revoke", call_play_subscription_revoke, {OPT_OUT, P_CLIENT, STR, JSON_OBJ, END}, 0},
    {"play_subscription_cancel", call_play_subscription_cancel, {OPT_OUT, P_CLIENT, STR, JSON_OBJ, END}, 0},
    {"play_subscription_defer", call_play_subscription_defer, {OPT_OUT, P_CLIENT, STR, JSON_OBJ, END}, 0},
    {"play_subscription_acknowledge", call_play_subscription_acknowledge, {OPT_OUT, P_CLIENT, PRODUCT, STR, OPT_JSON, END}, 0},
    {"play_product_get", call_play_product_get, {OPT_OUT, P_CLIENT, PRODUCT, STR, END}, 0},
    {"play_product_get_v2", call_play_product_get_v2, {OPT_OUT, P_CLIENT, STR, END}, 0},
    {"play_product_acknowledge", call_play_product_acknowledge, {OPT_OUT, P_CLIENT, PRODUCT, STR, OPT_JSON, END}, 0},
    {"play_product_consume", call_play_product_consume, {OPT_OUT, P_CLIENT, PRODUCT, STR, END}, 0},
    {"play_voided_purchases_list", call_play_voided_purchases_list, {OPT_OUT, P_CLIENT, OPT_JSON, END}, 0},
    {"play_order_get", call_play_order_get, {OPT_OUT, P_CLIENT, STR, END}, 0},
    {"play_purchase_is_test", call_play_purchase_is_test, {DATA, LEN, INT, END}, 0},
    {"play_orders_batch_get", call_play_orders_batch_get, {OPT_OUT, P_CLIENT, IDS, ID_COUNT, END}, 0},
    {"play_push_options_init", call_play_push_options_init, {OPTS_INIT, INT, END}, 0},
    {"play_push_verifier_new", call_play_push_verifier_new, {OUT_PTR, PUSH_OPTIONS, END}, 0},
    {"play_push_verifier_free", call_play_push_verifier_free, {FREE_PTR, END}, 1},
    {"play_verify_push", call_play_verify_push, {OUT_PTR, PUSH_V, OPT_STR, DATA, LEN, END}, 0},
    {"play_test_service_account", call_play_test_service_account, {OUT_PTR, STR, STR, END}, 0},
    {"play_test_issuer_new", call_play_test_issuer_new, {OUT_PTR, OPT_STR, END}, 0},
    {"play_test_issuer_free", call_play_test_issuer_free, {FREE_PTR, END}, 1},
    {"play_test_issuer_keys", call_play_test_issuer_keys, {OUT_PTR, T_ISSUER, END}, 0},
    {"play_test_issuer_sign_push", call_play_test_issuer_sign_push, {OUT_PTR, T_ISSUER, STR, STR, INT, END}, 0},
};

/* ---- argument values ------------------------------------------------------------------ */

static char folder[] = "/tmp/gatekit-c-hostile-XXXXXX";
static char store_path[600], text_path[600], pki_dir[600];
static gatekit_store *store;     /* opened by each child: SQLite handles must not cross fork() */
static char store_sentinel;      /* stands for "the child's open store" in argument lists */
static void *out_slot;
static char hash_out[GATEKIT_HASH_HEX_SIZE];
static char *long_string;  /* 1 MiB of 'a' */
static const char valid_hash[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char non_utf8[] = "\xff\xfe\xc3\x28 \xed\xa0\x80 bad";
static const char bytes[] = "0123456789abcdef";  /* 16 bytes + NUL */

/* Receipt and JWS material: real fixtures when present ($GATEKIT_FIXTURES), else
 * syntactically plausible stand-ins (the rows still run; only deeper paths are skipped). */
static unsigned char *receipt_data;
static size_t receipt_len = 16;
static char receipt_path[600];
static gatekit_receipt *receipt;  /* validated in the parent; immutable, so valid in children */
static char *jws_text;
static unsigned char *jws_anchor;
static size_t jws_anchor_len;
static char *huge_jws;           /* 2 MiB: over the 1 MiB limit */
static long long ll_slot;
static const unsigned char *bytes_slot;
static size_t size_slot;
static gatekit_purchase purchase_slot;
static gatekit_receipt_options ropt, ropt_v0, ropt_v999, ropt_no_bundle, ropt_bad_device, ropt_both_env,
    ropt_device_no_len, ropt_anchor_huge, ropt_anchor_null;
static gatekit_jws_options jopt, jopt_production, jopt_v0, jopt_v999, jopt_no_bundle, jopt_no_env, jopt_bad_env, jopt_prod_no_id,
    jopt_anchor_huge, jopt_anchor_null, jopt_anchor_garbage, jopt_unsigned_sandbox;
/* Room for any options struct an *_init function fills. */
static union { gatekit_receipt_options r; gatekit_jws_options j; gatekit_ledger_query l; gatekit_appstore_client_options c;
               gatekit_ledger_sync_options s; gatekit_eula_consent e; gatekit_eula_publication p;
               gatekit_play_client_options pc; gatekit_play_push_options pp; gatekit_ledger_stripe_options st; gatekit_webhook_delivery_options wd; } init_target;
static gatekit_eula_consent consent, consent_v0, consent_v999, consent_method_99, consent_not_ip, consent_bad_locale,
    consent_33_pairs, consent_keys_null, consent_key_twice, consent_agent_non_utf8, consent_agent_2k;
static const char *consent_keys[2] = {"ticket", "ticket"}, *consent_values[2] = {"T-1", "T-2"};
static char consent_agent_long[2048];
static const gatekit_jws_options *jopts_list[2], *jopts_with_null[2], *jopts_twice[2];
static gatekit_ledger_stripe_options stopt, stopt_v0, stopt_v999, stopt_grace_negative, stopt_grace_2y, stopt_key_empty, stopt_key_bracket,
    stopt_key_non_utf8, stopt_disputes_unknown, stopt_disputes_negative;
static gatekit_ledger_play_sync_options psopt, psopt_v0, psopt_v999, psopt_lease_0, psopt_budget_negative, psopt_overlap_huge;
static gatekit_ledger_sync_options sopt, sopt_v0, sopt_v999, sopt_no_verify, sopt_lease_0, sopt_overlap_negative, sopt_since_negative;
static gatekit_jws *signed_data;  /* verified in the parent from the fixture (NULL without it) */
static int cats[2] = {GATEKIT_PERM_CAMERA, GATEKIT_PERM_MICROPHONE};
static int cats_status[2] = {1, 2};  /* Apple's subscription statuses, for the API client */
static int out_cats[8], int_slot;
static gatekit_ledger_query lq, lq_v0, lq_v999, lq_no_env, lq_bad_env, lq_bad_flags, lq_negative_at, lq_negative_budget, lq_huge_budget;
static gatekit_entitlement ent_slot, ent_v99;
static gatekit_eula_text publication_texts[2], publication_bad_language[1], publication_path_and_bytes[1];
static gatekit_eula_publication publication, publication_v0, publication_v999, publication_65_texts, publication_texts_null,
    publication_bad_tag, publication_both, publication_negative_grace;
static gatekit_eula_presentation presentation_slot, presentation_v99;
static gatekit_purchase purchase_v0, purchase_v99;  /* versions the library does not fill */
static const char *product_ids[2] = {"dev.bonzer.weeka.app.subscription.pro.annual", "other"};
static const char *product_ids_bad[2] = {"ok", "\xff\xfe bad"};
static const char *stripe_secrets[2] = {"whsec_hostile_one", "whsec_hostile_two"};
static const char *webhook_secrets[2] = {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2Vjb25kIHNlY3JldCBvZiAzMiBieXRlcyEhISE="};
static const char *jws_list[2], *jws_list_with_null[2];
static unsigned char *pem_data;   /* a P-256 key made with the openssl CLI at start */
static size_t pem_len;
static gatekit_appstore_key *appstore_key;  /* loaded in the parent: immutable, valid in children */
static gatekit_appstore_client *appstore_client;  /* made in the parent; its server (127.0.0.1:1) refuses */
static gatekit_appstore_client_options copt, copt_v0, copt_v999, copt_no_env, copt_xcode, copt_http, copt_retries, copt_agent;
static gatekit_play_client *play_client;       /* made in the parent; its server (127.0.0.1:1) refuses */
static gatekit_stripe_client *stripe_client;   /* made in the parent; its server (127.0.0.1:1) refuses */
static gatekit_webhook_delivery_options wdopt, wdopt_v0, wdopt_v999, wdopt_timeout_0, wdopt_give_up_negative, wdopt_flags, wdopt_missing_ca;
static gatekit_ledger_stripe_sync_options ssopt, ssopt_v0, ssopt_v999, ssopt_lease_0, ssopt_budget_negative, ssopt_overlap_huge;
static gatekit_stripe_client_options scopt, scopt_v0, scopt_v999, scopt_no_key, scopt_both_keys, scopt_publishable, scopt_http,
    scopt_retries, scopt_missing_key;
static gatekit_play_push_verifier *push_verifier;  /* a fixed key set: no network */
static gatekit_play_test_issuer *test_issuer;
static gatekit_play_client_options popt, popt_v0, popt_v999, popt_no_package, popt_no_account, popt_http, popt_retries, popt_missing_key;
static gatekit_play_push_options pushopt, pushopt_v0, pushopt_v999, pushopt_no_audience, pushopt_both_keys, pushopt_bad_keys, pushopt_skew;

static arg valid_value(const api_entry *e, int k) {
    arg v = {0};
    switch (e->args[k]) {
    case STORE: v.p = &store_sentinel; break;
    case OUT_PTR: out_slot = NULL; v.p = &out_slot; break;
    case OUT_HASH: v.p = hash_out; break;
    case STR: v.s = "terms"; break;
    case OPT_STR: v.s = "terms"; break;
    case OPT_BYTES: v.s = "alice"; break;
    case HASH: v.s = valid_hash; break;
    case PATH: v.s = text_path; break;
    case OPT_PATH: v.s = store_path; break;
    case APP_ID: v.s = "com.example.hostile"; break;
    case DATA: v.p = (void *)bytes; break;
    case LEN: v.n = sizeof bytes - 1; break;
    case INT: v.i = 0; break;
    case FREE_PTR: v.p = NULL; break;
    case RECEIPT: v.p = receipt; break;
    case R_OPTIONS: v.p = &ropt; break;
    case R_DATA: v.p = receipt_data ? (void *)receipt_data : (void *)bytes; break;
    case J_OPTIONS: v.p = &jopt; break;
    case JWS: v.s = jws_text; break;
    case OUT_LL: v.p = &ll_slot; break;
    case OUT_BYTES: v.p = &bytes_slot; break;
    case OUT_SIZE: v.p = &size_slot; break;
    case PURCHASE: purchase_slot = (gatekit_purchase){.version = GATEKIT_PURCHASE_VERSION}; v.p = &purchase_slot; break;
    case INDEX: v.n = 0; break;
    case ATTR: v.i = 2; break;
    case AT_MS: v.ll = 0; break;
    case PRODUCT: case OPT_PRODUCT: v.s = "dev.bonzer.weeka.app.subscription.pro.annual"; break;
    case OPTS_INIT: v.p = &init_target; break;
    case OPT_STORE: v.p = &store_sentinel; break;
    case CATEGORY: v.i = GATEKIT_PERM_CAMERA; break;
    case DECISION: v.i = GATEKIT_PERM_DECISION_ASK_LATER; break;
    case PERM_NAME: v.s = e->args[0] == STORE ? "telemetry" : "camera"; break;
    case USAGE: v.s = "to take pictures"; break;
    case CATS: v.p = cats; break;
    case CAT_COUNT: v.n = 2; break;
    case OUT_INT: v.p = &int_slot; break;
    case OUT_CATS: v.p = out_cats; break;
    case PROVIDER: v.p = (void *)provider_answer; break;
    case CHANGED: v.p = (void *)changed_noop; break;
    case PAYLOAD: v.p = NULL; break;
    case TOKEN: v.i = 1; break;
    case INTERVAL: v.i = 50; break;
    case WFLAGS: v.i = 0; break;
    case JWS_KIND: v.i = GATEKIT_JWS_TRANSACTION; break;
    case SIGNED: v.p = signed_data; break;
    case OPT_OUT: out_slot = NULL; v.p = &out_slot; break;
    case L_QUERY: v.p = &lq; break;
    case ENT_OUT: ent_slot = (gatekit_entitlement){.version = GATEKIT_ENTITLEMENT_VERSION}; v.p = &ent_slot; break;
    case IDS: v.p = product_ids; break;
    case ID_COUNT: v.n = 2; break;
    case JWS_LIST: jws_list[0] = jws_list[1] = jws_text; v.p = jws_list; break;
    case JWS_COUNT: v.n = 2; break;
    case PEM: v.p = pem_data ? (void *)pem_data : (void *)bytes; break;
    case AS_KEY: v.p = appstore_key; break;
    case NONCE: v.s = "20fba8a0-2b80-4a7d-a17f-4b7f7d3d1c3e"; break;
    case JSON_OBJ: v.s = "{\"operation\":\"CREATE\",\"items\":[]}"; break;
    case AS_CLIENT: case OPT_CLIENT: v.p = appstore_client; break;
    case S_OPTIONS: v.p = &sopt; break;
    case CONSENT: v.p = &consent; break;
    case PUBLICATION: v.p = &publication; break;
    case PRESENT_OUT: presentation_slot = (gatekit_eula_presentation){.version = GATEKIT_EULA_PRESENTATION_VERSION}; v.p = &presentation_slot; break;
    case WRITE_FN: v.p = (void *)export_sink; break;
    case EFLAGS: v.i = (int)GATEKIT_EULA_EXPORT_TEXTS; break;
    case CFLAGS: v.i = (int)GATEKIT_CATALOG_CHECK_ONLY; break;
    case OPT_LL_OUT: v.p = &ll_slot; break;
    case NAMES: v.s = "terms@ba7816bf"; break;  /* valid_hash's first 8 digits */
    case ENV_VAR: v.s = "GATEKIT_HOSTILE_ACCEPT"; break;
    case J_OPTS_LIST: jopts_list[0] = &jopt; jopts_list[1] = &jopt_production; v.p = jopts_list; break;
    case J_OPTS_COUNT: v.n = 2; break;
    case C_OPTIONS: v.p = &copt; break;
    case OPT_JSON: v.s = "{\"startDate\":1}"; break;
    case P_CLIENT: case OPT_P_CLIENT: v.p = play_client; break;
    case PS_OPTIONS: v.p = &psopt; break;
    case ST_OPTIONS: v.p = &stopt; break;
    case SC_OPTIONS: v.p = &scopt; break;
    case S_CLIENT: case OPT_S_CLIENT: v.p = stripe_client; break;
    case SS_OPTIONS: v.p = &ssopt; break;
    case WD_OPTIONS: v.p = &wdopt; break;
    case OPT_SIZE_OUT: v.p = &size_slot; break;
    case P_OPTIONS: v.p = &popt; break;
    case PUSH_OPTIONS: v.p = &pushopt; break;
    case PUSH_V: v.p = push_verifier; break;
    case T_ISSUER: v.p = test_issuer; break;
    case PKI_DIR: v.s = pki_dir; break;
    case PAYLOAD_JSON:
        v.s = "{\"transactionId\":\"1\",\"originalTransactionId\":\"1\",\"bundleId\":\"b\",\"productId\":\"p\","
              "\"purchaseDate\":1,\"type\":\"Non-Consumable\",\"signedDate\":1767225600000,\"environment\":\"Sandbox\"}";
        break;
    case END: break;
    }
    if (e->args[k] == INT && e->call == call_ledger_query_init) v.i = GATEKIT_LEDGER_QUERY_VERSION;
    if (e->args[k] == INT && e->call == call_appstore_client_options_init) v.i = GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_play_client_options_init) v.i = GATEKIT_PLAY_CLIENT_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_play_push_options_init) v.i = GATEKIT_PLAY_PUSH_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_play_test_issuer_sign_push) v.i = 3600;
    if (e->args[k] == INT && e->call == call_ledger_sync_options_init) v.i = GATEKIT_LEDGER_SYNC_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_ledger_play_sync_options_init) v.i = GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_ledger_stripe_options_init) v.i = GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_stripe_client_options_init) v.i = GATEKIT_STRIPE_CLIENT_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_ledger_stripe_sync_options_init) v.i = GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_stripe_list) v.i = 1;
    /* A path below /v1/ and a subscription id, so the checks past them run. */
    if (k == 2 && e->args[k] == STR && (e->call == call_stripe_get || e->call == call_stripe_post || e->call == call_stripe_list)) v.s = "/v1/subscriptions";
    if (k == 3 && e->args[k] == STR && e->call == call_ledger_refresh_stripe) v.s = "sub_hostile";
    if (e->args[k] == INT && e->call == call_ledger_ingest_play_batch) v.i = GATEKIT_LEDGER_PLAY_SUBSCRIPTION;
    if (e->args[k] == INT && e->call == call_eula_consent_init) v.i = GATEKIT_EULA_CONSENT_VERSION;
    if (e->args[k] == INT && e->call == call_eula_publication_init) v.i = GATEKIT_EULA_PUBLICATION_VERSION;
    if (e->args[k] == INT && e->call == call_ledger_changes) v.i = 10;
    if (e->args[k] == STR && e->call == call_ledger_sync_state) v.s = "Sandbox";
    if (k == 1 && e->args[k] == STR && (e->call == call_ledger_link || e->call == call_ledger_unlink)) v.s = "Sandbox";
    if (k == 2 && e->args[k] == STR && e->call == call_ledger_links) v.s = "Sandbox";
    /* A grant is to an app account ("terms") or a customer: one of them, so its checks run. */
    if (k == 2 && (e->call == call_ledger_grant || e->call == call_ledger_revoke_grant)) v.s = "Sandbox";
    if (k == 5 && e->call == call_ledger_grant) v.s = NULL;
    if (e->args[k] == IDS && e->call == call_stripe_verify_webhook) v.p = stripe_secrets;
    if (e->args[k] == IDS && (e->call == call_webhook_sign || e->call == call_webhook_verify)) v.p = webhook_secrets;
    if (e->args[k] == INT && e->call == call_appstore_get_transaction_history) v.i = 2;
    if (e->args[k] == CATS && e->call == call_appstore_get_all_subscription_statuses) v.p = cats_status;
    if (e->args[k] == INT && e->call == call_appstore_api_token) v.i = 300;
    if (e->args[k] == LEN && k > 0 && e->args[k - 1] == PEM) v.n = pem_data ? pem_len : sizeof bytes - 1;
    if (e->args[k] == CATEGORY && e->call == call_perm_register_category) v.i = GATEKIT_PERM_HOST_FIRST + 7;
    /* The version after an options struct is the header's. */
    if (e->args[k] == INT && e->call == call_receipt_options_init) v.i = GATEKIT_RECEIPT_OPTIONS_VERSION;
    if (e->args[k] == INT && e->call == call_jws_options_init) v.i = GATEKIT_JWS_OPTIONS_VERSION;
    /* The LEN after receipt bytes is their length. */
    if (e->args[k] == LEN && k > 0 && e->args[k - 1] == R_DATA) v.n = receipt_data ? receipt_len : sizeof bytes - 1;
    return v;
}

typedef struct {
    const char *label;
    arg value;
    int must_be_einval;  /* 1: exactly GATEKIT_EINVAL (NULL for a required pointer, bad options);
                            2: GATEKIT_EINVAL or GATEKIT_ETOOLARGE (an impossible length) */
} variant;

/* Hostile variants of argument k (given the whole row, for DATA/LEN pairs). */
static int variants_for(const api_entry *e, int k, variant *out) {
    int n = 0;
    kind what = e->args[k];
    int required = what == STORE || what == OUT_PTR || what == OUT_HASH || what == STR || what == HASH || what == PATH ||
                   what == RECEIPT || what == R_OPTIONS || what == R_DATA || what == J_OPTIONS || what == JWS ||
                   what == OUT_LL || what == OUT_BYTES || what == OUT_SIZE || what == PURCHASE || what == PRODUCT ||
                   what == PERM_NAME || what == USAGE || what == CATS || what == OUT_INT || what == OUT_CATS || what == CHANGED ||
                   what == SIGNED || what == OPTS_INIT || what == L_QUERY || what == IDS || what == JWS_LIST || what == AS_KEY ||
                   what == NONCE || what == JSON_OBJ || what == AS_CLIENT || what == C_OPTIONS || what == PKI_DIR || what == PAYLOAD_JSON ||
                   what == S_OPTIONS || what == J_OPTS_LIST || what == NAMES || what == ENV_VAR || what == PUBLICATION ||
                   what == WRITE_FN || what == P_CLIENT || what == P_OPTIONS || what == PUSH_OPTIONS || what == PUSH_V || what == T_ISSUER ||
                   what == SC_OPTIONS || what == S_CLIENT || what == WD_OPTIONS;
    switch (what) {
    case STORE: case OUT_PTR: case OUT_HASH: case STR: case OPT_STR: case OPT_BYTES:
    case HASH: case PATH: case OPT_PATH: case APP_ID: case DATA: case FREE_PTR:
    case RECEIPT: case R_OPTIONS: case R_DATA: case J_OPTIONS: case JWS: case OUT_LL: case OUT_BYTES:
    case OUT_SIZE: case PURCHASE: case PRODUCT: case OPT_PRODUCT: case OPTS_INIT:
    case OPT_STORE: case PERM_NAME: case USAGE: case CATS: case OUT_INT: case OUT_CATS: case PROVIDER:
    case CHANGED: case PAYLOAD: case SIGNED: case OPT_OUT: case L_QUERY: case ENT_OUT: case IDS: case JWS_LIST:
    case PEM: case AS_KEY: case NONCE: case JSON_OBJ: case AS_CLIENT: case C_OPTIONS: case OPT_JSON: case PKI_DIR: case PAYLOAD_JSON:
    case S_OPTIONS: case OPT_CLIENT: case J_OPTS_LIST: case CONSENT: case NAMES: case ENV_VAR:
    case PUBLICATION: case PRESENT_OUT: case WRITE_FN: case OPT_LL_OUT:
    case P_CLIENT: case P_OPTIONS: case PUSH_OPTIONS: case PUSH_V: case T_ISSUER: case PS_OPTIONS: case OPT_P_CLIENT: case ST_OPTIONS:
    case SC_OPTIONS: case S_CLIENT: case SS_OPTIONS: case OPT_S_CLIENT: case OPT_SIZE_OUT: case WD_OPTIONS:
        out[n++] = (variant){"NULL", {.p = NULL}, required};
        break;
    default: break;
    }
    switch (what) {
    case STR: case OPT_STR: case OPT_BYTES: case HASH: case PATH: case OPT_PATH: case APP_ID:
    case JWS: case PRODUCT: case OPT_PRODUCT: case PERM_NAME: case USAGE: case NONCE: case JSON_OBJ: case OPT_JSON: case PKI_DIR: case PAYLOAD_JSON:
    case NAMES: case ENV_VAR:
        out[n++] = (variant){"\"\"", {.s = ""}, 0};
        out[n++] = (variant){"non-UTF-8", {.s = non_utf8}, 0};
        out[n++] = (variant){"1 MiB string", {.s = long_string}, 0};
        break;
    default: break;
    }
    if (what == HASH) {
        out[n++] = (variant){"uppercase hash", {.s = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"}, 0};
        out[n++] = (variant){"63 hex digits", {.s = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015a"}, 0};
        out[n++] = (variant){"65 hex digits", {.s = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad0"}, 0};
    }
    if (what == PATH || what == OPT_PATH || what == PKI_DIR) {
        out[n++] = (variant){"a folder", {.s = folder}, 0};
        out[n++] = (variant){"missing file", {.s = "/nonexistent/gatekit/file"}, 0};
        out[n++] = (variant){"/dev/null", {.s = "/dev/null"}, 0};
    }
    if (what == APP_ID) {
        out[n++] = (variant){"\"../escape\"", {.s = "../escape"}, 0};
        out[n++] = (variant){"\"a/b\"", {.s = "a/b"}, 0};
    }
    if (what == JWS) {
        out[n++] = (variant){"2 MiB JWS", {.s = huge_jws}, 0};
        out[n++] = (variant){"\"a.b.c\"", {.s = "a.b.c"}, 0};
        out[n++] = (variant){"\"..\"", {.s = ".."}, 0};
        out[n++] = (variant){"\"e30.e30.\"", {.s = "e30.e30."}, 0};
    }
    if (what == R_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &ropt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &ropt_v999}, 0};
        out[n++] = (variant){"bundle_id NULL", {.p = &ropt_no_bundle}, 1};
        out[n++] = (variant){"device_id_len 5", {.p = &ropt_bad_device}, 1};
        out[n++] = (variant){"device_id NULL, len 16", {.p = &ropt_device_no_len}, 1};
        out[n++] = (variant){"both environment flags", {.p = &ropt_both_env}, 1};
        out[n++] = (variant){"test_anchor_len SIZE_MAX", {.p = &ropt_anchor_huge}, 1};
        out[n++] = (variant){"test_anchor_der NULL, len 100", {.p = &ropt_anchor_null}, 1};
    }
    if (what == C_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &copt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &copt_v999}, 0};
        out[n++] = (variant){"environment NULL", {.p = &copt_no_env}, 1};
        out[n++] = (variant){"environment Xcode", {.p = &copt_xcode}, 1};
        out[n++] = (variant){"base_url http://", {.p = &copt_http}, 1};
        out[n++] = (variant){"max_retries -1", {.p = &copt_retries}, 1};
        out[n++] = (variant){"user_agent with CR LF", {.p = &copt_agent}, 1};
    }
    if (what == P_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &popt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &popt_v999}, 0};
        out[n++] = (variant){"package_name NULL", {.p = &popt_no_package}, 1};
        out[n++] = (variant){"service_account_file NULL", {.p = &popt_no_account}, 1};
        out[n++] = (variant){"base_url http://", {.p = &popt_http}, 1};
        out[n++] = (variant){"max_retries -1", {.p = &popt_retries}, 1};
        out[n++] = (variant){"a missing key file", {.p = &popt_missing_key}, 0};
    }
    if (what == WD_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &wdopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &wdopt_v999}, 0};
        out[n++] = (variant){"attempt_timeout_ms 0", {.p = &wdopt_timeout_0}, 1};
        out[n++] = (variant){"give_up_after_ms -1", {.p = &wdopt_give_up_negative}, 1};
        out[n++] = (variant){"flags 8", {.p = &wdopt_flags}, 1};
        out[n++] = (variant){"a missing ca_file", {.p = &wdopt_missing_ca}, 0};
    }
    if (what == SS_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &ssopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &ssopt_v999}, 0};
        out[n++] = (variant){"lease_ms 0", {.p = &ssopt_lease_0}, 1};
        out[n++] = (variant){"budget_ms -1", {.p = &ssopt_budget_negative}, 1};
        out[n++] = (variant){"overlap_ms LLONG_MAX", {.p = &ssopt_overlap_huge}, 1};
    }
    if (what == SC_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &scopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &scopt_v999}, 0};
        out[n++] = (variant){"no key", {.p = &scopt_no_key}, 1};
        out[n++] = (variant){"api_key and api_key_file", {.p = &scopt_both_keys}, 1};
        out[n++] = (variant){"a publishable key", {.p = &scopt_publishable}, 1};
        out[n++] = (variant){"base_url http://", {.p = &scopt_http}, 1};
        out[n++] = (variant){"max_retries -1", {.p = &scopt_retries}, 1};
        out[n++] = (variant){"a missing key file", {.p = &scopt_missing_key}, 0};
    }
    if (what == PUSH_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &pushopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &pushopt_v999}, 0};
        out[n++] = (variant){"audience NULL", {.p = &pushopt_no_audience}, 1};
        out[n++] = (variant){"keys_url and keys_json", {.p = &pushopt_both_keys}, 1};
        out[n++] = (variant){"keys_json not a key set", {.p = &pushopt_bad_keys}, 0};
        out[n++] = (variant){"clock_skew_s -1", {.p = &pushopt_skew}, 1};
    }
    if (what == OPT_JSON || what == JSON_OBJ) {
        out[n++] = (variant){"\"[1]\"", {.s = "[1]"}, 0};
        out[n++] = (variant){"\"{\"", {.s = "{"}, 0};
    }
    if (what == J_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &jopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &jopt_v999}, 0};
        out[n++] = (variant){"bundle_id NULL", {.p = &jopt_no_bundle}, 1};
        out[n++] = (variant){"environment NULL", {.p = &jopt_no_env}, 1};
        out[n++] = (variant){"environment \"bogus\"", {.p = &jopt_bad_env}, 1};
        out[n++] = (variant){"Production without app_apple_id", {.p = &jopt_prod_no_id}, 1};
        out[n++] = (variant){"test_anchor_len SIZE_MAX", {.p = &jopt_anchor_huge}, 1};
        out[n++] = (variant){"test_anchor_der NULL, len 100", {.p = &jopt_anchor_null}, 1};
        out[n++] = (variant){"test_anchor garbage", {.p = &jopt_anchor_garbage}, 0};
        out[n++] = (variant){"UNSIGNED_LOCAL for Sandbox", {.p = &jopt_unsigned_sandbox}, 1};
    }
    if (what == ATTR) {
        const int ids[] = {-1, INT_MIN, INT_MAX, 17, 1702, 1708, 4, 99, 100};
        static char labels[9][16];
        for (int i = 0; i < 9; i++) {
            snprintf(labels[i], sizeof labels[i], "%d", ids[i]);
            out[n++] = (variant){labels[i], {.i = ids[i]}, 0};
        }
    }
    if (what == INDEX) {
        out[n++] = (variant){"SIZE_MAX", {.n = SIZE_MAX}, 0};
        out[n++] = (variant){"1<<31", {.n = (size_t)1 << 31}, 0};
        out[n++] = (variant){"100000", {.n = 100000}, 0};
    }
    if (what == PURCHASE) {
        out[n++] = (variant){"version 0", {.p = &purchase_v0}, 0};
        out[n++] = (variant){"version 99", {.p = &purchase_v99}, 0};
    }
    if (what == CATEGORY || what == TOKEN) {
        const int ids[] = {0, -1, INT_MIN, INT_MAX, 5000, 8100, GATEKIT_PERM_ALL, GATEKIT_PERM_HOST_FIRST, 999999};
        static char labels[9][16];
        for (int i = 0; i < 9; i++) {
            snprintf(labels[i], sizeof labels[i], "%d", ids[i]);
            out[n++] = (variant){labels[i], {.i = ids[i]}, 0};
        }
    }
    if (what == DECISION || what == INTERVAL || what == WFLAGS) {
        out[n++] = (variant){"0", {.i = 0}, 0};
        out[n++] = (variant){"-1", {.i = -1}, 0};
        out[n++] = (variant){"5", {.i = 5}, 0};
        out[n++] = (variant){"INT_MIN", {.i = INT_MIN}, 0};
        out[n++] = (variant){"INT_MAX", {.i = INT_MAX}, 0};
    }
    if (what == CAT_COUNT) {
        out[n++] = (variant){"0", {.n = 0}, 0};
        out[n++] = (variant){"SIZE_MAX", {.n = SIZE_MAX}, 2};
        out[n++] = (variant){"65537", {.n = 65537}, 2};
        out[n++] = (variant){"(size_t)INT64_MAX + 1", {.n = (size_t)INT64_MAX + 1}, 2};
    }
    if (what == AT_MS) {
        out[n++] = (variant){"LLONG_MIN", {.ll = LLONG_MIN}, 0};
        out[n++] = (variant){"LLONG_MAX", {.ll = LLONG_MAX}, 0};
        out[n++] = (variant){"-1", {.ll = -1}, 0};
    }
    if (what == LEN) {
        out[n++] = (variant){"0", {.n = 0}, 0};
        out[n++] = (variant){"SIZE_MAX", {.n = SIZE_MAX}, 2};
        out[n++] = (variant){"(size_t)INT64_MAX + 1", {.n = (size_t)INT64_MAX + 1}, 2};
    }
    if (what == JWS_KIND) {
        out[n++] = (variant){"0", {.i = 0}, 1};
        out[n++] = (variant){"6", {.i = 6}, 1};
        out[n++] = (variant){"INT_MIN", {.i = INT_MIN}, 1};
    }
    if (what == L_QUERY) {
        out[n++] = (variant){"version 0", {.p = &lq_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &lq_v999}, 0};
        out[n++] = (variant){"environment NULL", {.p = &lq_no_env}, 1};
        out[n++] = (variant){"environment \"bogus\"", {.p = &lq_bad_env}, 1};
        out[n++] = (variant){"flags 0x80", {.p = &lq_bad_flags}, 1};
        out[n++] = (variant){"at_ms -1", {.p = &lq_negative_at}, 1};
        out[n++] = (variant){"refresh_budget_ms -1", {.p = &lq_negative_budget}, 1};
        out[n++] = (variant){"refresh_budget_ms LLONG_MAX", {.p = &lq_huge_budget}, 1};
    }
    if (what == S_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &sopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &sopt_v999}, 0};
        out[n++] = (variant){"verify NULL", {.p = &sopt_no_verify}, 1};
        out[n++] = (variant){"lease_ms 0", {.p = &sopt_lease_0}, 1};
        out[n++] = (variant){"overlap_ms -1", {.p = &sopt_overlap_negative}, 1};
        out[n++] = (variant){"since_ms -1", {.p = &sopt_since_negative}, 1};
    }
    if (what == PS_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &psopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &psopt_v999}, 0};
        out[n++] = (variant){"lease_ms 0", {.p = &psopt_lease_0}, 1};
        out[n++] = (variant){"budget_ms -1", {.p = &psopt_budget_negative}, 1};
        out[n++] = (variant){"overlap_ms LLONG_MAX", {.p = &psopt_overlap_huge}, 1};
    }
    if (what == ST_OPTIONS) {
        out[n++] = (variant){"version 0", {.p = &stopt_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &stopt_v999}, 0};
        out[n++] = (variant){"past_due_grace_ms -2", {.p = &stopt_grace_negative}, 1};
        out[n++] = (variant){"past_due_grace_ms two years", {.p = &stopt_grace_2y}, 1};
        out[n++] = (variant){"account_metadata_key \"\"", {.p = &stopt_key_empty}, 1};
        out[n++] = (variant){"account_metadata_key \"a[b]\"", {.p = &stopt_key_bracket}, 1};
        out[n++] = (variant){"account_metadata_key non-UTF-8", {.p = &stopt_key_non_utf8}, 1};
        out[n++] = (variant){"dispute_policy 3", {.p = &stopt_disputes_unknown}, 1};
        out[n++] = (variant){"dispute_policy -1", {.p = &stopt_disputes_negative}, 1};
    }
    if (what == CONSENT) {
        out[n++] = (variant){"version 0", {.p = &consent_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &consent_v999}, 0};
        out[n++] = (variant){"method 99", {.p = &consent_method_99}, 1};
        out[n++] = (variant){"client_address \"localhost\"", {.p = &consent_not_ip}, 1};
        out[n++] = (variant){"locale \"de_AT\"", {.p = &consent_bad_locale}, 1};
        out[n++] = (variant){"metadata_count 33", {.p = &consent_33_pairs}, 2};
        out[n++] = (variant){"metadata_count 1, keys NULL", {.p = &consent_keys_null}, 1};
        out[n++] = (variant){"a key twice", {.p = &consent_key_twice}, 1};
        out[n++] = (variant){"user_agent non-UTF-8", {.p = &consent_agent_non_utf8}, 1};
        out[n++] = (variant){"user_agent 2 KiB", {.p = &consent_agent_2k}, 2};
    }
    if (what == NAMES) {
        out[n++] = (variant){"no \"@\"", {.s = "terms"}, 1};
        out[n++] = (variant){"7 hex digits", {.s = "terms@ba7816b"}, 1};
        out[n++] = (variant){"not hex", {.s = "terms@zzzzzzzz"}, 1};
        out[n++] = (variant){"another text's hash", {.s = "terms@00000000"}, 0};
        out[n++] = (variant){"a trailing comma", {.s = "terms@ba7816bf,"}, 1};
    }
    if (what == PUBLICATION) {
        out[n++] = (variant){"version 0", {.p = &publication_v0}, 0};
        out[n++] = (variant){"version 999", {.p = &publication_v999}, 0};
        out[n++] = (variant){"text_count 65", {.p = &publication_65_texts}, 2};
        out[n++] = (variant){"text_count 1, texts NULL", {.p = &publication_texts_null}, 1};
        out[n++] = (variant){"language \"de_AT\"", {.p = &publication_bad_tag}, 1};
        out[n++] = (variant){"a path and bytes", {.p = &publication_both}, 1};
        out[n++] = (variant){"grace_ms -1", {.p = &publication_negative_grace}, 1};
    }
    if (what == PRESENT_OUT) out[n++] = (variant){"version 99", {.p = &presentation_v99}, 0};
    if (what == WRITE_FN) out[n++] = (variant){"a write that stops the export", {.p = (void *)export_stop}, 0};
    if (what == CFLAGS) {
        out[n++] = (variant){"an unknown bit", {.i = 0x80}, 1};
        out[n++] = (variant){"every bit", {.i = -1}, 1};
        out[n++] = (variant){"none (declare)", {.i = 0}, 0};
    }
    if (what == EFLAGS) {
        out[n++] = (variant){"an unknown bit", {.i = 0x80}, 1};
        out[n++] = (variant){"every bit", {.i = -1}, 1};
        out[n++] = (variant){"CSV", {.i = (int)GATEKIT_EULA_EXPORT_CSV}, 0};
    }
    if (what == ENV_VAR) {
        out[n++] = (variant){"\"1BAD\"", {.s = "1BAD"}, 1};
        out[n++] = (variant){"\"A=B\"", {.s = "A=B"}, 1};
    }
    if (what == ENT_OUT) out[n++] = (variant){"version 99", {.p = &ent_v99}, 0};
    if (what == IDS) out[n++] = (variant){"a non-UTF-8 id", {.p = product_ids_bad}, 1};
    if (what == JSON_OBJ) {
        out[n++] = (variant){"an array", {.s = "[1,2]"}, 1};
        out[n++] = (variant){"not JSON", {.s = "{\"a\":"}, 1};
    }
    if (what == PAYLOAD_JSON) {
        out[n++] = (variant){"an array", {.s = "[1,2]"}, 0};
        out[n++] = (variant){"not JSON", {.s = "{\"a\":"}, 0};
        out[n++] = (variant){"a renewal info's members", {.s = "{\"originalTransactionId\":\"1\",\"autoRenewStatus\":1}"}, 0};
    }
    if (what == NONCE) out[n++] = (variant){"not a UUID", {.s = "20fba8a0-2b80-4a7d-a17f-4b7f7d3d1c3"}, 1};
    if (what == JWS_LIST) {
        jws_list_with_null[0] = jws_text;
        jws_list_with_null[1] = NULL;
        out[n++] = (variant){"a NULL item", {.p = jws_list_with_null}, 1};
    }
    if (what == J_OPTS_LIST) {
        jopts_with_null[0] = &jopt;
        jopts_with_null[1] = NULL;
        out[n++] = (variant){"a NULL entry", {.p = jopts_with_null}, 1};
        jopts_twice[0] = jopts_twice[1] = &jopt;
        out[n++] = (variant){"one environment twice", {.p = jopts_twice}, 1};
    }
    if (what == J_OPTS_COUNT) {
        out[n++] = (variant){"0", {.n = 0}, 1};
        out[n++] = (variant){"5", {.n = 5}, 1};
        out[n++] = (variant){"SIZE_MAX", {.n = SIZE_MAX}, 1};
    }
    if (what == JWS_COUNT) {
        out[n++] = (variant){"0", {.n = 0}, 0};
        out[n++] = (variant){"SIZE_MAX", {.n = SIZE_MAX}, 1};
        out[n++] = (variant){"10001", {.n = 10001}, 1};
    }
    if (what == ID_COUNT) {
        out[n++] = (variant){"0", {.n = 0}, 0};
        out[n++] = (variant){"SIZE_MAX", {.n = SIZE_MAX}, 1};
        out[n++] = (variant){"65537", {.n = 65537}, 1};
    }
    if (what == INT) {
        out[n++] = (variant){"INT_MIN", {.i = INT_MIN}, 0};
        out[n++] = (variant){"INT_MAX", {.i = INT_MAX}, 0};
        out[n++] = (variant){"-1", {.i = -1}, 0};
    }
    return n;
}

/* ---- running a call in a child ---------------------------------------------------------- */

enum { CHILD_OK = 0, CHILD_WRONG = 1, CHILD_SETUP = 2 };

static int run_isolated(const api_entry *e, arg *a, int must_be_einval, char *why, size_t why_len) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(getenv("GATEKIT_SANITIZER") ? 120 : 5);  /* valgrind runs a debug build ~50x slower */
        char msg[512] = "";
        if (gatekit_store_open(&store, store_path, NULL) != 0) _exit(CHILD_SETUP);
        for (int k = 0; k < MAX_ARGS && e->args[k] != END; k++)
            if (a[k].p == &store_sentinel) a[k].p = store;
        int rc = e->call(a);
        int ok = 1;
        if (!e->returns_pointer) {
            if (must_be_einval == 2 && rc != GATEKIT_EINVAL && rc != GATEKIT_ETOOLARGE) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned %d, expected GATEKIT_EINVAL or GATEKIT_ETOOLARGE", rc);
            } else if (must_be_einval == 1 && rc != GATEKIT_EINVAL) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned %d, expected GATEKIT_EINVAL", rc);
            } else if (rc == GATEKIT_EINTERNAL) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned GATEKIT_EINTERNAL (%s)", gatekit_last_error());
            } else if (rc < 0 && (!gatekit_last_error() || !*gatekit_last_error())) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned %d with an empty gatekit_last_error()", rc);
            } else if (rc < 0 && strcmp(gatekit_strerror(rc), "unknown error") == 0) {
                ok = 0;
                snprintf(msg, sizeof msg, "returned %d, which is no GATEKIT_E* code", rc);
            }
        }
        gatekit_store_close(store);
        if (write(fds[1], msg, strlen(msg)) < 0) _exit(CHILD_SETUP);
        _exit(ok ? CHILD_OK : CHILD_WRONG);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], why, why_len - 1);
    why[got > 0 ? got : 0] = 0;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        snprintf(why, why_len, "CRASHED with signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return CHILD_WRONG;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : CHILD_WRONG;
}

static int arg_count(const api_entry *e) {
    int n = 0;
    while (n < MAX_ARGS && e->args[n] != END) n++;
    return n;
}

static int calls_run;

static void describe(char *buf, size_t len, const api_entry *e, int k, const char *label) {
    int n = snprintf(buf, len, "%s(", e->name);
    for (int j = 0; j < arg_count(e) && n > 0 && (size_t)n < len; j++)
        n += snprintf(buf + n, len - (size_t)n, "%s%s", j ? ", " : "", j == k ? label : "valid");
    if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, ")");
}

static void hammer(const api_entry *e) {
    int count = arg_count(e);
    arg a[MAX_ARGS];
    char why[512], call[256];
    /* The valid call first: it must not crash or claim an internal error. */
    for (int j = 0; j < count; j++) a[j] = valid_value(e, j);
    int r = run_isolated(e, a, 0, why, sizeof why);
    calls_run++;
    describe(call, sizeof call, e, -1, "");
    if (r != CHILD_OK) fprintf(stderr, "  %s: %s\n", call, why);
    CHECK(r == CHILD_OK);
    for (int k = 0; k < count; k++) {
        variant v[32];
        int nv = variants_for(e, k, v);
        for (int i = 0; i < nv; i++) {
            for (int j = 0; j < count; j++) a[j] = valid_value(e, j);
            a[k] = v[i].value;
            r = run_isolated(e, a, v[i].must_be_einval, why, sizeof why);
            calls_run++;
            describe(call, sizeof call, e, k, v[i].label);
            if (r != CHILD_OK) fprintf(stderr, "  %s: %s\n", call, why);
            CHECK(r == CHILD_OK);
        }
    }
}

/* ---- coverage of the header -------------------------------------------------------------- */

static void test_every_export_has_a_row(void) {
    /* The domain headers gatekit.h includes (GATEKIT_INCLUDE: the include folder). */
    const char *include = getenv("GATEKIT_INCLUDE") ? getenv("GATEKIT_INCLUDE") : "include";
    char pattern[512];
    snprintf(pattern, sizeof pattern, "%s/gatekit/*.h", include);
    glob_t headers;
    if (glob(pattern, 0, NULL, &headers) != 0 || headers.gl_pathc == 0) {
        printf("  SKIP header coverage: no %s (run from the repository root or set GATEKIT_INCLUDE)\n", pattern);
        return;
    }
    char line[1024];
    int declared = 0, missing = 0;
    for (size_t h = 0; h < headers.gl_pathc; h++) {
        FILE *f = fopen(headers.gl_pathv[h], "r");
        if (!f) continue;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "GATEKIT_API", 11) != 0) continue;
            char *paren = strchr(line, '(');
            if (!paren) continue;
            char *end = paren;
            while (end > line && (end[-1] == ' ')) end--;
            char *start = end;
            while (start > line && (start[-1] == '_' || (start[-1] >= 'a' && start[-1] <= 'z') || (start[-1] >= '0' && start[-1] <= '9')))
                start--;
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(end - start), start);
            declared++;
            int found = 0;
            for (size_t i = 0; i < sizeof api / sizeof api[0]; i++) found |= strcmp(api[i].name, name) == 0;
            if (!found) { fprintf(stderr, "  %s is exported but has no row in test_hostile.c\n", name); missing++; }
        }
        fclose(f);
    }
    globfree(&headers);
    printf("  header: %d functions, %d without a hostile row\n", declared, missing);
    CHECK(declared > 0);
    CHECK(missing == 0);
}

/* The documented answers of the pointer-returning and void functions. */
static void test_documented_null_answers(void) {
    CHECK(gatekit_store_path(NULL) == NULL);
    gatekit_store_close(NULL);
    gatekit_free(NULL);
    CHECK(gatekit_strerror(INT_MIN) != NULL);
    CHECK_STR(gatekit_strerror(INT_MAX), "unknown error");
    CHECK(gatekit_last_error() != NULL);
    CHECK(receipt_identity(NULL) == NULL);
    CHECK(jws_json(NULL) == NULL);
    CHECK(jws_identity(NULL) == NULL);
    jws_free(NULL);
}

static void setup_appstore_key(void) {
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out '%s/key.p8' 2>/dev/null", folder);
    if (system(cmd) == 0) pem_data = check_read_file(check_path_in(folder, "key.p8"), &pem_len);
    if (!pem_data || appstore_key_load(&appstore_key, pem_data, pem_len, "keyId", "issuerId", "bundleId") != 0)
        printf("  SKIP deep App Store signing paths: no key (openssl CLI: %s)\n", gatekit_last_error());
    if (appstore_client_options_init(&copt, GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION) != 0) return;
    copt.environment = "Sandbox";
    copt.base_url = "https://127.0.0.1:1";  /* nothing listens: every request fails at once */
    copt.connect_timeout_ms = 1000;
    copt.max_retries = 0;
    copt_v0 = copt_v999 = copt_no_env = copt_xcode = copt_http = copt_retries = copt_agent = copt;
    copt_v0.version = 0;
    copt_v999.version = 999;
    copt_no_env.environment = NULL;
    copt_xcode.environment = "Xcode";
    copt_http.base_url = "http://127.0.0.1:1";
    copt_retries.max_retries = -1;
    copt_agent.user_agent = "agent\r\nX-Injected: 1";
    if (!appstore_key || appstore_client_new(&appstore_client, appstore_key, &copt) != 0)
        printf("  SKIP deep App Store Server API paths: no client (%s)\n", gatekit_last_error());
}

static void setup_play(void) {
    char *account = NULL, *keys = NULL;
    static char account_path[700], keys_copy[8192];
    snprintf(account_path, sizeof account_path, "%s/service-account.json", folder);
    if (play_test_service_account(&account, "hostile@example.iam.gserviceaccount.com", "https://127.0.0.1:1/token") == 0) {
        FILE *f = fopen(account_path, "w");
        if (f) { fputs(account, f); fclose(f); }
        chmod(account_path, 0600);
    }
    gatekit_free(account);
    CHECK_RC(play_client_options_init(&popt, GATEKIT_PLAY_CLIENT_OPTIONS_VERSION), GATEKIT_OK);
    popt.package_name = "com.example.app";
    popt.service_account_file = account_path;
    popt.base_url = "https://127.0.0.1:1";  /* nothing listens: every request fails at once */
    popt.connect_timeout_ms = 1000;
    popt.max_retries = 0;
    popt_v0 = popt_v999 = popt_no_package = popt_no_account = popt_http = popt_retries = popt_missing_key = popt;
    popt_v0.version = 0;
    popt_v999.version = 999;
    popt_no_package.package_name = NULL;
    popt_no_account.service_account_file = NULL;
    popt_http.base_url = "http://127.0.0.1:1";
    popt_retries.max_retries = -1;
    popt_missing_key.service_account_file = "/nonexistent/gatekit/key.json";
    CHECK_RC(play_client_new(&play_client, &popt), GATEKIT_OK);
    CHECK_RC(stripe_client_options_init(&scopt, GATEKIT_STRIPE_CLIENT_OPTIONS_VERSION), GATEKIT_OK);
    scopt.api_key = "sk_test_hostile0123456789abcdefghijkl";
    scopt.base_url = "https://127.0.0.1:1";  /* nothing listens: every request fails at once */
    scopt.connect_timeout_ms = 1000;
    scopt.max_retries = 0;
    scopt_v0 = scopt_v999 = scopt_no_key = scopt_both_keys = scopt_publishable = scopt_http = scopt_retries = scopt_missing_key = scopt;
    scopt_v0.version = 0;
    scopt_v999.version = 999;
    scopt_no_key.api_key = NULL;
    scopt_both_keys.api_key_file = "/nonexistent/gatekit/stripe-key";
    scopt_publishable.api_key = "pk_test_hostile0123456789abcdefghijkl";
    scopt_http.base_url = "http://127.0.0.1:1";
    scopt_retries.max_retries = -1;
    scopt_missing_key.api_key = NULL;
    scopt_missing_key.api_key_file = "/nonexistent/gatekit/stripe-key";
    CHECK_RC(stripe_client_new(&stripe_client, &scopt), GATEKIT_OK);
    CHECK_RC(ledger_webhook_delivery_options_init(&wdopt, GATEKIT_WEBHOOK_DELIVERY_OPTIONS_VERSION), GATEKIT_OK);
    wdopt_v0 = wdopt_v999 = wdopt_timeout_0 = wdopt_give_up_negative = wdopt_flags = wdopt_missing_ca = wdopt;
    wdopt_v0.version = 0;
    wdopt_v999.version = 999;
    wdopt_timeout_0.attempt_timeout_ms = 0;
    wdopt_give_up_negative.give_up_after_ms = -1;
    wdopt_flags.flags = 8;
    wdopt_missing_ca.ca_file = "/nonexistent/gatekit/ca.pem";
    CHECK_RC(ledger_stripe_sync_options_init(&ssopt, GATEKIT_LEDGER_STRIPE_SYNC_OPTIONS_VERSION), GATEKIT_OK);
    ssopt.max_pages = 1;
    ssopt_v0 = ssopt_v999 = ssopt_lease_0 = ssopt_budget_negative = ssopt_overlap_huge = ssopt;
    ssopt_v0.version = 0;
    ssopt_v999.version = 999;
    ssopt_lease_0.lease_ms = 0;
    ssopt_budget_negative.budget_ms = -1;
    ssopt_overlap_huge.overlap_ms = LLONG_MAX;
    CHECK_RC(play_test_issuer_new(&test_issuer, NULL), GATEKIT_OK);
    CHECK_RC(play_test_issuer_keys(&keys, test_issuer), GATEKIT_OK);
    snprintf(keys_copy, sizeof keys_copy, "%s", keys ? keys : "");
    gatekit_free(keys);
    CHECK_RC(play_push_options_init(&pushopt, GATEKIT_PLAY_PUSH_OPTIONS_VERSION), GATEKIT_OK);
    pushopt.package_name = "com.example.app";
    pushopt.audience = "https://rtdn.example.com";
    pushopt.service_account_email = "push@example.iam.gserviceaccount.com";
    pushopt.issuer = "https://oidc.test.gatekit.invalid";
    pushopt.keys_json = keys_copy;
    pushopt_v0 = pushopt_v999 = pushopt_no_audience = pushopt_both_keys = pushopt_bad_keys = pushopt_skew = pushopt;
    pushopt_v0.version = 0;
    pushopt_v999.version = 999;
    pushopt_no_audience.audience = NULL;
    pushopt_both_keys.keys_url = "https://127.0.0.1:1/keys";
    pushopt_bad_keys.keys_json = "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"a\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}";
    pushopt_skew.clock_skew_s = -1;
    CHECK_RC(play_push_verifier_new(&push_verifier, &pushopt), GATEKIT_OK);
}

static void setup_receipts_and_jws(void) {
    const char *fx = getenv("GATEKIT_FIXTURES") ? getenv("GATEKIT_FIXTURES") : "../shared/fixtures";
    char path[1024];
    snprintf(receipt_path, sizeof receipt_path, "%s/receipts/apple/tp__receipt-sandbox-g5.der", fx);
    receipt_data = check_read_file(receipt_path, &receipt_len);
    snprintf(path, sizeof path, "%s/jws/apple-test/mock_signed_data/transactionInfo", fx);
    size_t n = 0;
    jws_text = (char *)check_read_file(path, &n);
    while (jws_text && n > 0 && (jws_text[n - 1] == '\n' || jws_text[n - 1] == '\r')) jws_text[--n] = 0;
    snprintf(path, sizeof path, "%s/jws/apple-test/certs/testCA.der", fx);
    jws_anchor = check_read_file(path, &jws_anchor_len);
    if (!receipt_data || !jws_text || !jws_anchor)
        printf("  SKIP deep receipt/JWS paths: fixtures not found under %s (set GATEKIT_FIXTURES); stand-ins used\n", fx);
    if (!jws_text) jws_text = strdup("eyJhbGciOiJFUzI1NiJ9.e30.AAAA");

    CHECK_RC(receipt_options_init(&ropt, GATEKIT_RECEIPT_OPTIONS_VERSION), GATEKIT_OK);
    ropt.bundle_id = "dev.bonzer.weeka.app";
    ropt_v0 = ropt; ropt_v0.version = 0;
    ropt_v999 = ropt; ropt_v999.version = 999;
    ropt_no_bundle = ropt; ropt_no_bundle.bundle_id = NULL;
    static const unsigned char device[16] = {1, 2, 3};
    ropt_bad_device = ropt; ropt_bad_device.device_id = device; ropt_bad_device.device_id_len = 5;
    ropt_device_no_len = ropt; ropt_device_no_len.device_id = NULL; ropt_device_no_len.device_id_len = 16;
    ropt_both_env = ropt; ropt_both_env.flags = GATEKIT_RECEIPT_PRODUCTION_ONLY | GATEKIT_RECEIPT_SANDBOX_ONLY;
    ropt_anchor_huge = ropt; ropt_anchor_huge.test_anchor_der = device; ropt_anchor_huge.test_anchor_len = SIZE_MAX;
    ropt_anchor_null = ropt; ropt_anchor_null.test_anchor_der = NULL; ropt_anchor_null.test_anchor_len = 100;
    if (receipt_data && receipt_validate(&receipt, receipt_data, receipt_len, &ropt) != 0)
        printf("  receipt fixture did not validate (%s): receipt rows use NULL only\n", gatekit_last_error());

    CHECK_RC(jws_options_init(&jopt, GATEKIT_JWS_OPTIONS_VERSION), GATEKIT_OK);
    jopt.bundle_id = "com.example";
    jopt.environment = "Sandbox";
    jopt.test_anchor_der = jws_anchor;
    jopt.test_anchor_len = jws_anchor ? jws_anchor_len : 0;
    jopt_production = jopt; jopt_production.environment = "Production"; jopt_production.app_apple_id = 41234;
    jopt_v0 = jopt; jopt_v0.version = 0;
    jopt_v999 = jopt; jopt_v999.version = 999;
    jopt_no_bundle = jopt; jopt_no_bundle.bundle_id = NULL;
    jopt_no_env = jopt; jopt_no_env.environment = NULL;
    jopt_bad_env = jopt; jopt_bad_env.environment = "bogus";
    jopt_prod_no_id = jopt; jopt_prod_no_id.environment = "Production"; jopt_prod_no_id.app_apple_id = 0;
    jopt_anchor_huge = jopt; jopt_anchor_huge.test_anchor_der = device; jopt_anchor_huge.test_anchor_len = SIZE_MAX;
    jopt_anchor_null = jopt; jopt_anchor_null.test_anchor_der = NULL; jopt_anchor_null.test_anchor_len = 100;
    static const unsigned char garbage[] = {0x30, 0x82, 0xff, 0xff, 0x01};
    jopt_anchor_garbage = jopt; jopt_anchor_garbage.test_anchor_der = garbage; jopt_anchor_garbage.test_anchor_len = sizeof garbage;
    jopt_unsigned_sandbox = jopt; jopt_unsigned_sandbox.environment = "Sandbox"; jopt_unsigned_sandbox.flags = GATEKIT_JWS_UNSIGNED_LOCAL;
    CHECK_RC(ledger_query_init(&lq, GATEKIT_LEDGER_QUERY_VERSION), GATEKIT_OK);
    lq.environment = "Sandbox";
    lq_v0 = lq; lq_v0.version = 0;
    lq_v999 = lq; lq_v999.version = 999;
    lq_no_env = lq; lq_no_env.environment = NULL;
    lq_bad_env = lq; lq_bad_env.environment = "bogus";
    lq_bad_flags = lq; lq_bad_flags.flags = 0x80;
    lq_negative_at = lq; lq_negative_at.at_ms = -1;
    lq_negative_budget = lq; lq_negative_budget.refresh_budget_ms = -1;
    lq_huge_budget = lq; lq_huge_budget.refresh_budget_ms = LLONG_MAX;
    CHECK_RC(ledger_sync_options_init(&sopt, GATEKIT_LEDGER_SYNC_OPTIONS_VERSION), GATEKIT_OK);
    sopt.verify = &jopt;
    sopt_v0 = sopt; sopt_v0.version = 0;
    sopt_v999 = sopt; sopt_v999.version = 999;
    sopt_no_verify = sopt; sopt_no_verify.verify = NULL;
    sopt_lease_0 = sopt; sopt_lease_0.lease_ms = 0;
    sopt_overlap_negative = sopt; sopt_overlap_negative.overlap_ms = -1;
    sopt_since_negative = sopt; sopt_since_negative.since_ms = -1;
    CHECK_RC(ledger_stripe_options_init(&stopt, GATEKIT_LEDGER_STRIPE_OPTIONS_VERSION), GATEKIT_OK);
    stopt_v0 = stopt; stopt_v0.version = 0;
    stopt_v999 = stopt; stopt_v999.version = 999;
    stopt_grace_negative = stopt; stopt_grace_negative.past_due_grace_ms = -2;
    stopt_grace_2y = stopt; stopt_grace_2y.past_due_grace_ms = 2LL * 366 * 86400000;
    stopt_key_empty = stopt; stopt_key_empty.account_metadata_key = "";
    stopt_key_bracket = stopt; stopt_key_bracket.account_metadata_key = "a[b]";
    stopt_key_non_utf8 = stopt; stopt_key_non_utf8.account_metadata_key = non_utf8;
    stopt_disputes_unknown = stopt; stopt_disputes_unknown.dispute_policy = 3;
    stopt_disputes_negative = stopt; stopt_disputes_negative.dispute_policy = -1;
    CHECK_RC(ledger_play_sync_options_init(&psopt, GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_VERSION), GATEKIT_OK);
    psopt.max_pages = 1;
    psopt_v0 = psopt; psopt_v0.version = 0;
    psopt_v999 = psopt; psopt_v999.version = 999;
    psopt_lease_0 = psopt; psopt_lease_0.lease_ms = 0;
    psopt_budget_negative = psopt; psopt_budget_negative.budget_ms = -1;
    psopt_overlap_huge = psopt; psopt_overlap_huge.overlap_ms = LLONG_MAX;
    ent_v99.version = 99;
    purchase_v99.version = 99;
    CHECK_RC(eula_consent_init(&consent, GATEKIT_EULA_CONSENT_VERSION), GATEKIT_OK);
    consent.method = GATEKIT_EULA_METHOD_API;
    consent.client_address = "192.0.2.7";
    consent_v0 = consent_v999 = consent_method_99 = consent_not_ip = consent_bad_locale = consent_33_pairs = consent;
    consent_keys_null = consent_key_twice = consent_agent_non_utf8 = consent_agent_2k = consent;
    consent_v0.version = 0;
    consent_v999.version = 999;
    consent_method_99.method = 99;
    consent_not_ip.client_address = "localhost";
    consent_bad_locale.locale = "de_AT";
    consent_33_pairs.metadata_count = 33;  /* refused before either array is read */
    consent_keys_null.metadata_count = 1;
    consent_key_twice.metadata_keys = consent_keys;
    consent_key_twice.metadata_values = consent_values;
    consent_key_twice.metadata_count = 2;
    consent_agent_non_utf8.user_agent = non_utf8;
    memset(consent_agent_long, 'a', sizeof consent_agent_long - 1);
    consent_agent_2k.user_agent = consent_agent_long;
    CHECK_RC(eula_publication_init(&publication, GATEKIT_EULA_PUBLICATION_VERSION), GATEKIT_OK);
    publication_texts[0] = (gatekit_eula_text){.language = "en", .bytes = "hostile terms", .length = 13};
    publication_texts[1] = (gatekit_eula_text){.language = "de-AT", .path = text_path};
    publication.label = "hostile-1";
    publication.default_language = "en";
    publication.texts = publication_texts;
    publication.text_count = 2;
    publication_v0 = publication_v999 = publication_65_texts = publication_texts_null = publication;
    publication_bad_tag = publication_both = publication_negative_grace = publication;
    publication_v0.version = 0;
    publication_v999.version = 999;
    publication_65_texts.text_count = 65;  /* refused before the array is read */
    publication_texts_null.texts = NULL;
    publication_texts_null.text_count = 1;
    publication_bad_language[0] = (gatekit_eula_text){.language = "de_AT", .bytes = "x", .length = 1};
    publication_bad_tag.texts = publication_bad_language;
    publication_bad_tag.text_count = 1;
    publication_path_and_bytes[0] = (gatekit_eula_text){.language = "en", .path = text_path, .bytes = "x", .length = 1};
    publication_both.texts = publication_path_and_bytes;
    publication_both.text_count = 1;
    publication_negative_grace.grace_ms = -1;
    presentation_v99.version = 99;

    if (jws_anchor && jws_verify(&signed_data, GATEKIT_JWS_TRANSACTION, jws_text, &jopt) != 0)
        printf("  JWS fixture did not verify (%s): signed-data rows use NULL only\n", gatekit_last_error());

    huge_jws = malloc(2u << 20);
    if (huge_jws) { memset(huge_jws, 'A', (2u << 20) - 1); huge_jws[(2u << 20) - 1] = 0; }
}

int main(int argc, char **argv) {
    (void)argc;
    check_disable_swift_backtracer(argv);
    /* perm_use_portal with a valid app id would reach the desktop session's bus: a bus that
     * does not exist keeps every run the same (and touches no real desktop). */
    setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/gatekit-test-bus", 1);
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    snprintf(store_path, sizeof store_path, "%s/store.sqlite", folder);
    snprintf(text_path, sizeof text_path, "%s/EULA.txt", folder);
    snprintf(pki_dir, sizeof pki_dir, "%s/pki", folder);
    CHECK_RC(jws_test_pki_create(pki_dir), GATEKIT_OK);
    FILE *t = fopen(text_path, "w");
    if (!t) return 2;
    fputs("Terms\n", t);
    fclose(t);
    long_string = malloc(1 << 20);
    if (!long_string) return 2;
    memset(long_string, 'a', (1 << 20) - 1);
    long_string[(1 << 20) - 1] = 0;
    setup_receipts_and_jws();
    setup_appstore_key();
    setup_play();
    /* NULL store paths resolve under the temporary folder, never the real home. */
    setenv("XDG_STATE_HOME", folder, 1);
    unsetenv("GATEKIT_STORE");
    if (gatekit_store_open(&store, store_path, NULL) != 0) { fprintf(stderr, "setup: %s\n", gatekit_last_error()); return 2; }
    gatekit_store_close(store);
    store = NULL;

    test_every_export_has_a_row();
    test_documented_null_answers();
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++) hammer(&api[i]);
    printf("  %d isolated calls over %zu functions\n", calls_run, sizeof api / sizeof api[0]);

    free(long_string);
    free(huge_jws);
    receipt_free(receipt);
    jws_free(signed_data);
    free(receipt_data);
    free(jws_text);
    free(jws_anchor);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_hostile");
}
