/*
 * gatekit.h — GateKit's public C API. This file is the contract: if a function, type or
 * constant is not declared here, it is not part of the API.
 *
 * GateKit decides, at launch and at every purchase, what a user may do:
 *   - EULA gating: has this user accepted this exact text (its SHA-256)?
 *   - App Store receipts: did Apple really sell this product?
 *   - Permissions: may the app ask for this permission now?
 *
 * Conventions (every function below follows them unless its comment says otherwise):
 *   - A function that can fail returns int: 0 (or a documented positive result) on success,
 *     a negative GATEKIT_E* code on failure. gatekit_last_error() then describes the failure
 *     for the calling thread. Codes never change meaning; new codes are only ever added.
 *   - Output parameters come first; the single output is named out. Not yet in two
 *     places, to change together in one release before 1.0: the App Store Server
 *     API calls (appstore_get_*, appstore_set_*, …) take the client first and their outputs
 *     last, and ledger_is_entitled() takes its details (out) last.
 *   - What the library returns through an out pointer is owned by the caller and freed with
 *     the matching function: strings with gatekit_free(), handles with their *_free/_close.
 *     Never free library memory with your own free(), never pass your memory to gatekit_free().
 *   - Every *_free / *_close accepts NULL as a no-op. Using a handle after freeing it is
 *     undefined behaviour.
 *   - NULL for a required pointer is GATEKIT_EINVAL, never a crash.
 *   - Strings are NUL-terminated UTF-8 unless the comment says bytes.
 *   - Every JSON document the library returns says its shape: lists are
 *     {"version":1,"<items>":[...]}, receipt_inspect() has a top-level "version", and verified
 *     data carries it in GateKit's "gatekit" member. Within a version members are only added.
 *   - Options structs start with their version: *_options_init(&o, <header's VERSION>) or
 *     GATEKIT_*_OPTIONS_INIT; a newer library reads and writes only that version's members.
 *   - Exported names are short and prefixed by area (gatekit_, eula_, receipt_, perm_, jws_,
 *     ledger_, appstore_): the names the library was asked to export; the prefixes keep them
 *     apart from a host's. python/tests/test_package.py checks that every function has one.
 *   - Thread safety is stated per object: gatekit_store is safe to share between threads;
 *     the static functions are safe from any thread.
 *
 * Link with `pkg-config --cflags --libs gatekit`.
 */
#ifndef GATEKIT_H
#define GATEKIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define GATEKIT_API __attribute__((visibility("default")))
#  define GATEKIT_WARN_UNUSED __attribute__((warn_unused_result))
#else
#  define GATEKIT_API
#  define GATEKIT_WARN_UNUSED
#endif

/* ========================================================================================
 * Version
 * ====================================================================================== */

#define GATEKIT_VERSION_MAJOR 0
#define GATEKIT_VERSION_MINOR 1
#define GATEKIT_VERSION_PATCH 0
#define GATEKIT_VERSION_STRING "0.1.0"
#define GATEKIT_VERSION_NUMBER \
    (GATEKIT_VERSION_MAJOR * 10000 + GATEKIT_VERSION_MINOR * 100 + GATEKIT_VERSION_PATCH)

/* The library's version as "MAJOR.MINOR.PATCH". Static storage; any thread. */
GATEKIT_API const char *gatekit_version(void);

/* MAJOR*10000 + MINOR*100 + PATCH. Compare with GATEKIT_VERSION_NUMBER to detect a
 * header/library mismatch. Any thread. */
GATEKIT_API int gatekit_version_number(void);

/* ========================================================================================
 * Errors and memory
 * ====================================================================================== */

#define GATEKIT_OK 0

/* General (-1 … -99). */
#define GATEKIT_EINVAL          (-1)   /* invalid argument (NULL, malformed, out of range) */
#define GATEKIT_ENOTFOUND       (-2)   /* a file or record does not exist */
#define GATEKIT_EIO             (-3)   /* reading or writing a file failed */
#define GATEKIT_EBUSY           (-4)   /* the store stayed locked by others after retries */
#define GATEKIT_ECORRUPT        (-5)   /* the store file is damaged (it is left untouched) */
#define GATEKIT_ENEWER          (-6)   /* the store was written by a newer GateKit (untouched) */
#define GATEKIT_ENOMEM          (-7)   /* out of memory */
#define GATEKIT_EINTERNAL       (-8)   /* a bug in GateKit: please report it */
#define GATEKIT_ENOTSTORE       (-9)   /* the file is not a GateKit store (it is left untouched) */
#define GATEKIT_EREADONLY       (-10)  /* the store cannot be written */
#define GATEKIT_EVERSION        (-11)  /* an options struct's version is not supported */
#define GATEKIT_ETOOLARGE       (-12)  /* an input exceeds a documented limit */
#define GATEKIT_EUNSAFE         (-13)  /* the store or its folder is a symbolic link, or another user owns or can write it (left untouched) */
#define GATEKIT_ECONNECTION     (-14)  /* PostgreSQL store: the server cannot be reached, refused the login, or the connection broke; nothing was written (the next call reconnects) */
#define GATEKIT_EUNCERTAIN      (-15)  /* PostgreSQL store: the connection broke during COMMIT, so the write may or may not be recorded; retrying it is safe (every write is idempotent or append-only) */
#define GATEKIT_EFORKED         (-16)  /* the store handle was opened before this process forked: it belongs to the parent (its connection, its locks); open the store again in the child */

/* Receipts (-100 … -199): see the receipts section. */
/* Permissions (-200 … -299): see the permissions section. */
/* Signed data, JWS (-300 … -399): see the signed-data section. */
/* App Store signing and server API (-400 … -499): see the App Store section. */

/* Static English text for a code ("unknown error" for a number that is no code).
 * Never NULL, never freed; any thread. */
GATEKIT_API const char *gatekit_strerror(int code);

/* The calling thread's last failure in detail, e.g. "eula_accept: hash must be 64 hex
 * digits (a SHA-256)". Never NULL ("" before any failure); valid until the next failing call on
 * this thread; never freed by the caller. A successful call does not clear it. */
GATEKIT_API const char *gatekit_last_error(void);

/* Frees memory the library returned (JSON strings, arrays). NULL is a no-op. */
GATEKIT_API void gatekit_free(void *ptr);

/* Drops every process-wide cache: verified certificate chains (receipts and JWS), decoded JWS
 * headers, test-anchor trust policies. For tests and benchmarks of cold paths; never needed
 * for correctness (a cached answer is only given where a full computation agrees). Any thread. */
GATEKIT_API void gatekit_clear_caches(void);

/* ========================================================================================
 * Store
 * ====================================================================================== */

/* An open store: an SQLite file in WAL mode holding EULA decisions, permission state and the
 * entitlement ledger.
 * One handle may be used from many threads at once; many processes may open the same file.
 * Writes are durable when the call returns (synchronous=FULL).
 *
 * Who can read a store: only the user who created it. GateKit creates the store and its
 * -wal/-shm files mode 0600 and the folders it creates 0700, whatever the umask, and
 * narrows an existing store of its own user to 0600. It opens a store only when the file
 * and its companions are regular files (never a symbolic link), owned by the calling user
 * and writable by nobody else, in a folder that no other user can write (owned by the user
 * or root; group- or world-writable only with the sticky bit); otherwise GATEKIT_EUNSAFE,
 * with the file, its owner and its mode in gatekit_last_error(), and nothing written.
 * Group-shared deployments opt in with GATEKIT_STORE_GROUP_SHARED (see below).
 * On a read-only file system (or a read-only file) the store opens read-only: reads answer,
 * writes fail with GATEKIT_EREADONLY.
 *
 * PostgreSQL: a path that is a "postgresql://" or "postgres://" URI, or a libpq key=value
 * string whose first keyword is libpq's ("host=db1 dbname=gatekit"), opens the same store on
 * a PostgreSQL server through libpq (loaded on first use; Debian libpq5). Over TCP GateKit
 * requires TLS and verifies the server's certificate and name (sslmode=verify-full, with the
 * system's CAs unless sslrootcert names others) unless the string or $PGSSLMODE says another
 * sslmode; a Unix socket needs none. $PG* variables and ~/.pgpass count as libpq says.
 * GateKit needs a server session of its own: a connection pooler in between (PgBouncer, any
 * pool mode) is detected and refused with GATEKIT_EINVAL. The schema, and every table,
 * index, sequence, function, type and trigger in it, must be owned by the connecting role
 * (GATEKIT_STORE_GROUP_SHARED: by one role it is a member of), no other role may create in it
 * or write its tables, and every trigger must be GateKit's: otherwise GATEKIT_EUNSAFE naming
 * the object and its owner, before anything is read or written. Writers lock rows of the
 * store's own table, which no other role can hold. (docs/hardening.md) Each app_id is its own schema "gatekit/<app_id>" in that database (NULL: "default"),
 * so many apps share one database; the schema is versioned and migrated like the file
 * (GATEKIT_ENEWER, GATEKIT_ENOTSTORE for a schema of that name holding something else;
 * nothing is ever dropped). Every function below means the same on both backends.
 * On PostgreSQL every call that reads or writes the store may block on the network: at most
 * connect_timeout to (re)connect (10 s unless the string or $PGCONNECT_TIMEOUT says
 * otherwise) plus statement_timeout per statement (30 s unless "options" or $PGOPTIONS set
 * it), and a write may wait for another client writing the same subject (one subscription,
 * the permission state). Races are retried inside GateKit (10 attempts), then GATEKIT_EBUSY;
 * a statement that reached statement_timeout (or lock_timeout) is not retried: GATEKIT_EBUSY
 * at once, saying what it waited for.
 * A broken connection is GATEKIT_ECONNECTION, with nothing written, and the next call
 * reconnects; a connection that breaks during COMMIT is GATEKIT_EUNCERTAIN, never success
 * (every GateKit write is idempotent or append-only, so retrying it is safe). Caches (the
 * ledger's, the permission snapshot) stay coherent: handles in one process see each other's
 * commits at once, as on SQLite; a commit by another process or machine is seen once its
 * LISTEN/NOTIFY notification arrives (under a millisecond on one host).
 * Messages never hold the password; gatekit_store_path() answers the URI without it. */
typedef struct gatekit_store gatekit_store;

/* Opens (creating if needed) a store.
 * path NULL: $GATEKIT_STORE, else $XDG_STATE_HOME/gatekit/<app_id>.sqlite, else
 * ~/.local/state/gatekit/<app_id>.sqlite; missing parent folders are created (mode 0700).
 * A variable that is set is used or is an error (GATEKIT_EINVAL naming it): an empty or
 * non-UTF-8 $GATEKIT_STORE, or a relative $XDG_STATE_HOME or $HOME, never silently
 * selects another file.
 * app_id becomes a file name: 1-128 letters, digits, '.', '-', '_', no ".."; it may be NULL
 * only when path or $GATEKIT_STORE names the file.
 * Errors: GATEKIT_EINVAL (bad app_id, path is a folder, a malformed connection string),
 * GATEKIT_ENOTSTORE (a foreign file), GATEKIT_ECORRUPT, GATEKIT_ENEWER (newer schema),
 * GATEKIT_EIO, GATEKIT_EBUSY, GATEKIT_ECONNECTION (PostgreSQL unreachable). On any error
 * the existing file is left exactly as it was. On success *out is a new handle that the
 * caller closes with gatekit_store_close(). */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_open(gatekit_store **out, const char *path, const char *app_id);

/* gatekit_store_open() flags. */
#define GATEKIT_STORE_GROUP_SHARED 0x1u  /* a store shared by a group of users: files created 0660
                                          * and folders 0770; files owned by another user and
                                          * group-writable files and folders are accepted. Symbolic
                                          * links and world-writable files (or folders without the
                                          * sticky bit) are still refused. Every member of the
                                          * file's group can then read and write every decision.
                                          * PostgreSQL: the schema may be owned by a role the
                                          * connecting role is a member of (a team's owner role). */

#define GATEKIT_STORE_EXISTING     0x2u  /* open only a store that exists: GATEKIT_ENOTFOUND, and
                                          * nothing created (no file, no folder, no schema),
                                          * when there is none yet. For read-only questions. */

/* gatekit_store_open() with flags (0 or GATEKIT_STORE_* above); GATEKIT_EINVAL for unknown bits. */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_open_flags(gatekit_store **out, const char *path, const char *app_id, unsigned int flags);

/* Closes a handle. NULL is a no-op. No other thread may be using the handle. Stops the
 * permission watcher (waiting for a callback it runs) and drops subscriptions and the provider.
 *
 * Processes and fork: a handle belongs to the process that opened it. In a child made by
 * fork(2) after the open (gunicorn with preload_app, uWSGI without lazy-apps, multiprocessing's
 * fork start method) every call on the inherited handle fails with GATEKIT_EFORKED and
 * touches nothing, and gatekit_store_close() on it does nothing (closing would close the
 * parent's connection): open the store again in the child. docs/hosting.md shows the pattern
 * for prefork servers, threads and asyncio. */
GATEKIT_API void gatekit_store_close(gatekit_store *store);

/* The store's file path. Owned by the handle: valid until gatekit_store_close(). NULL for a
 * NULL store. */
GATEKIT_API const char *gatekit_store_path(const gatekit_store *store);

/* Full integrity check of the store file: 0 when sound, GATEKIT_ECORRUPT (with the problems
 * in gatekit_last_error()) when not. Read-only. */
GATEKIT_API GATEKIT_WARN_UNUSED int gatekit_store_check(gatekit_store *store);

/* ========================================================================================
 * EULA gating
 *
 * A document's version is the SHA-256 of its bytes (64 lowercase hex digits). Present a
 * document when this user's most recent decision on this exact text — or on a text it was
 * declared a minor revision of — is not an acceptance. Decisions are appended to a history
 * that is never rewritten. user NULL means the app's single default user; a user name is
 * 1-4096 bytes and need not be UTF-8. document_id is 1-1024 bytes of UTF-8.
 * All functions taking a store are safe from many threads on one handle.
 * ====================================================================================== */

#define GATEKIT_HASH_HEX_SIZE 65   /* 64 hex digits + NUL */

/* GATEKIT_HASH_HEX_SIZE as a function, for FFI hosts that cannot read macros. */
GATEKIT_API size_t gatekit_hash_hex_size(void);

/* SHA-256 of a file's bytes into out (64 lowercase hex digits + NUL).
 * GATEKIT_ENOTFOUND for a missing file, GATEKIT_EIO for a folder or an unreadable file. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_hash_file(char out[GATEKIT_HASH_HEX_SIZE], const char *path);

/* SHA-256 of len bytes at data (data may be NULL only when len is 0). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_hash_bytes(char out[GATEKIT_HASH_HEX_SIZE], const void *data, size_t len);

/* 1: present the document at path (never accepted by this user, declined since, or the text
 * changed); 0: accepted; <0: error. A missing or unreadable file is an error
 * (GATEKIT_ENOTFOUND / GATEKIT_EIO), never "present" and never "accepted". */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_should_present(gatekit_store *store, const char *document_id, const char *path, const char *user);

/* Like eula_should_present() for a text whose hash the host computed (eula_hash_bytes()). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_should_present_hash(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* Records acceptance of exactly the text whose hash is given: the text that was shown.
 * Accepting a hash that differs from the current file is legal (the user accepted what was
 * shown); eula_should_present() then still answers 1 for the current file.
 * GATEKIT_EINVAL unless hash is 64 hex digits (either case: stored lowercase, so both spellings
 * mean one text). Durable when it returns 0. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_accept(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* Records a decline of the text whose hash is given. A decline after an acceptance presents
 * the document again. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_decline(gatekit_store *store, const char *document_id, const char *hash, const char *user);

/* This user's decisions as JSON, oldest first:
 *   {"version":1,"decisions":[{"document_id":"terms","hash":"<64 hex>","user":"alice"|null,
 *     "decision":"accepted"|"declined","at":"2026-11-22T06:52:02.123Z"}, ...]}
 * A user name that is not valid UTF-8 appears with U+FFFD replacements in "user" and exactly
 * in "user_hex". document_id NULL: every document. *out is freed with gatekit_free(). */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history(char **out_json, gatekit_store *store, const char *document_id, const char *user);

/* Like eula_history() for every user (the auditor's export). document_id NULL: all. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_history_all(char **out_json, gatekit_store *store, const char *document_id);

/* Declares to_hash a minor revision of from_hash (a typo fix): an acceptance of from_hash
 * covers to_hash, transitively. Idempotent. */
GATEKIT_API GATEKIT_WARN_UNUSED int eula_mark_minor_revision(gatekit_store *store, const char *document_id, const char *from_hash, const char *to_hash);

/* ========================================================================================
 * App Store receipts
 *
 * receipt_validate() decides whether bytes are a genuine App Store receipt for your app:
 * PKCS#7 SignedData (DER or BER, raw or base64 text), RSA signature over the payload, chain
 * leaf (OID 1.2.840.113635.100.6.11.1) -> WWDR intermediate (1.2.840.113635.100.6.2.1) ->
 * Apple Inc. Root CA pinned by SHA-256 in the library, exactly three certificates, validity
 * checked at the receipt's creation date (attribute 12) unless verify_time says otherwise,
 * then bundle id, optional app version and device hash. Xcode (StoreKit testing) receipts
 * pass only when the caller supplies test_anchor_der, and never as App Store receipts.
 * The first failing check decides the code; gatekit_last_error() has the precise reason.
 * receipt_apple_status() maps a code onto verifyReceipt's status numbers.
 *
 * A gatekit_receipt is immutable: share it between threads freely; free it once.
 * Strings returned by accessors are owned by the receipt and valid until receipt_free().
 * Field ids are Apple's attribute type numbers (GATEKIT_RECEIPT_* / GATEKIT_IAP_* below).
 * ====================================================================================== */

#define GATEKIT_ERECEIPT_MALFORMED           (-100)  /* receipt is not a PKCS#7 SignedData receipt (malformed); Apple 21002 */
#define GATEKIT_ERECEIPT_PAYLOAD             (-101)  /* receipt payload is malformed; Apple 21002 */
#define GATEKIT_ERECEIPT_ALGORITHM           (-102)  /* receipt uses an unsupported algorithm; Apple 21002 */
#define GATEKIT_ERECEIPT_SIGNED_ATTRS        (-103)  /* receipt signer has signed attributes (not an Apple receipt); Apple 21003 */
#define GATEKIT_ERECEIPT_NO_SIGNER           (-104)  /* receipt signer certificate is not in the receipt; Apple 21003 */
#define GATEKIT_ERECEIPT_SIGNATURE           (-105)  /* receipt signature does not verify; Apple 21003 */
#define GATEKIT_ERECEIPT_UNTRUSTED           (-106)  /* receipt does not chain to the trusted root; Apple 21003 */
#define GATEKIT_ERECEIPT_CHAIN_LENGTH        (-107)  /* receipt certificate chain has the wrong length; Apple 21003 */
#define GATEKIT_ERECEIPT_LEAF_OID            (-108)  /* receipt signer certificate lacks Apple's receipt-signing OID; Apple 21003 */
#define GATEKIT_ERECEIPT_INTERMEDIATE_OID    (-109)  /* receipt intermediate certificate lacks Apple's WWDR OID; Apple 21003 */
#define GATEKIT_ERECEIPT_CERT_TIME           (-110)  /* receipt certificate not valid at the verification time; Apple 21003 */
#define GATEKIT_ERECEIPT_WEAK_DIGEST         (-111)  /* receipt uses SHA-1 where SHA-256 is required; Apple 21003 */
#define GATEKIT_ERECEIPT_CERT_SIGNATURE      (-112)  /* receipt certificate signature does not verify; Apple 21003 */
#define GATEKIT_ERECEIPT_CHAIN               (-113)  /* receipt certificate chain is invalid; Apple 21003 */
#define GATEKIT_ERECEIPT_BAD_CERT            (-114)  /* receipt contains an undecodable certificate; Apple 21003 */
#define GATEKIT_ERECEIPT_BUNDLE_ID           (-115)  /* receipt is for another bundle id; Apple 21003 */
#define GATEKIT_ERECEIPT_APP_VERSION         (-116)  /* receipt is for another app version; Apple 21003 */
#define GATEKIT_ERECEIPT_DEVICE_HASH         (-117)  /* receipt device hash does not match the device id; Apple 21003 */
#define GATEKIT_ERECEIPT_XCODE               (-118)  /* Xcode (StoreKit testing) receipt refused; Apple 21003 */
#define GATEKIT_ERECEIPT_SANDBOX             (-119)  /* sandbox receipt where production is required; Apple 21007 */
#define GATEKIT_ERECEIPT_PRODUCTION          (-120)  /* production receipt where sandbox is required; Apple 21008 */
#define GATEKIT_ERECEIPT_NO_CREATION_DATE    (-121)  /* receipt has no creation date; Apple 21002 */
#define GATEKIT_ERECEIPT_ENVIRONMENT         (-122)  /* receipt has an unknown environment; Apple 21003 */
#define GATEKIT_ERECEIPT_TEST_ANCHOR         (-123)  /* test anchor is not a DER certificate; Apple 21009 */

/* Options flags. */
#define GATEKIT_RECEIPT_REQUIRE_SHA256   0x1u  /* reject SHA-1 signatures and SHA-1 signed certificates */
#define GATEKIT_RECEIPT_PRODUCTION_ONLY  0x2u  /* sandbox receipts fail with GATEKIT_ERECEIPT_SANDBOX (21007) */
#define GATEKIT_RECEIPT_SANDBOX_ONLY     0x4u  /* production receipts fail with GATEKIT_ERECEIPT_PRODUCTION (21008) */

#define GATEKIT_RECEIPT_OPTIONS_VERSION 1u

typedef struct gatekit_receipt gatekit_receipt;

typedef struct gatekit_receipt_options {
    unsigned int version;                 /* set by receipt_options_init */
    const char *bundle_id;                /* required: must equal attribute 2 */
    const char *app_version;              /* NULL: not checked; else must equal attribute 3 */
    const unsigned char *device_id;       /* NULL: no device-hash check */
    size_t device_id_len;                 /* 16 (identifierForVendor UUID bytes) or 6 (MAC address) */
    long long verify_time;                /* Unix seconds (negative: before 1970); 0: the receipt's creation date */
    unsigned int flags;                   /* GATEKIT_RECEIPT_* flags above */
    const unsigned char *test_anchor_der; /* DER certificate trusted for Xcode receipts only */
    size_t test_anchor_len;
} gatekit_receipt_options;

/* Receipt attribute ids (Apple's type numbers). Strings: ENVIRONMENT, BUNDLE_ID, APP_VERSION,
 * AGE_RATING, ORIGINAL_APP_VERSION, and the dates as written. Integers: APP_ITEM_ID,
 * DOWNLOAD_ID, VERSION_EXTERNAL_ID. Dates: CREATION_DATE, ORIGINAL_PURCHASE_DATE,
 * EXPIRATION_DATE. Bytes: BUNDLE_ID (the DER value hashed by the device check), OPAQUE, HASH. */
#define GATEKIT_RECEIPT_ENVIRONMENT             0
#define GATEKIT_RECEIPT_APP_ITEM_ID             1
#define GATEKIT_RECEIPT_BUNDLE_ID               2
#define GATEKIT_RECEIPT_APP_VERSION             3
#define GATEKIT_RECEIPT_OPAQUE                  4
#define GATEKIT_RECEIPT_HASH                    5
#define GATEKIT_RECEIPT_AGE_RATING              10
#define GATEKIT_RECEIPT_CREATION_DATE           12
#define GATEKIT_RECEIPT_DOWNLOAD_ID             15
#define GATEKIT_RECEIPT_VERSION_EXTERNAL_ID     16
#define GATEKIT_RECEIPT_ORIGINAL_PURCHASE_DATE  18
#define GATEKIT_RECEIPT_ORIGINAL_APP_VERSION    19
#define GATEKIT_RECEIPT_EXPIRATION_DATE         21

/* In-app purchase field ids. Strings: PRODUCT_ID, TRANSACTION_ID, ORIGINAL_TRANSACTION_ID,
 * PROMOTIONAL_OFFER_ID and the dates as written. Integers: QUANTITY, PRODUCT_TYPE (0
 * non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable), WEB_ORDER_LINE_ITEM_ID,
 * IS_TRIAL_PERIOD and IS_IN_INTRO_OFFER_PERIOD (0/1). Dates: PURCHASE_DATE,
 * ORIGINAL_PURCHASE_DATE, EXPIRES_DATE, CANCELLATION_DATE. */
#define GATEKIT_IAP_QUANTITY                    1701
#define GATEKIT_IAP_PRODUCT_ID                  1702
#define GATEKIT_IAP_TRANSACTION_ID              1703
#define GATEKIT_IAP_PURCHASE_DATE               1704
#define GATEKIT_IAP_ORIGINAL_TRANSACTION_ID     1705
#define GATEKIT_IAP_ORIGINAL_PURCHASE_DATE      1706
#define GATEKIT_IAP_PRODUCT_TYPE                1707
#define GATEKIT_IAP_EXPIRES_DATE                1708
#define GATEKIT_IAP_WEB_ORDER_LINE_ITEM_ID      1711
#define GATEKIT_IAP_CANCELLATION_DATE           1712
#define GATEKIT_IAP_IS_TRIAL_PERIOD             1713
#define GATEKIT_IAP_IS_IN_INTRO_OFFER_PERIOD    1719
#define GATEKIT_IAP_PROMOTIONAL_OFFER_ID        1721

/* Static initialiser: gatekit_receipt_options o = GATEKIT_RECEIPT_OPTIONS_INIT; */
#define GATEKIT_RECEIPT_OPTIONS_INIT { .version = GATEKIT_RECEIPT_OPTIONS_VERSION }

/* Sets *options to the defaults of `version` (pass GATEKIT_RECEIPT_OPTIONS_VERSION, the
 * version of the header you compile with): zeroes exactly the members that version has
 * and sets options->version. A library newer than your header therefore never writes
 * past your struct. 0, GATEKIT_EINVAL (NULL), or GATEKIT_EVERSION (a version this library
 * does not know; nothing written). Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_options_init(gatekit_receipt_options *options, unsigned int version);

/* Validates a receipt: data is DER/BER bytes or their base64 text (detected), at most 16 MB.
 * On success *out is a new receipt (free with receipt_free) and 0 is returned; on failure
 * *out is NULL and the code is one of GATEKIT_ERECEIPT_* (first failing check), GATEKIT_EINVAL
 * (NULL out/data/options/bundle_id, device_id_len not 16 or 6, both environment flags),
 * GATEKIT_EVERSION, GATEKIT_ETOOLARGE, GATEKIT_ENOMEM. Any thread. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_validate(gatekit_receipt **out, const void *data, size_t len, const gatekit_receipt_options *options);

/* receipt_validate() on a file's contents (path "-" is not special). Also GATEKIT_ENOTFOUND,
 * GATEKIT_EIO for the file. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_validate_file(gatekit_receipt **out, const char *path, const gatekit_receipt_options *options);

/* Frees a receipt. NULL is a no-op. */
GATEKIT_API void receipt_free(gatekit_receipt *receipt);

/* The receipt as verifyReceipt's JSON body ({"status":0,"environment":...,"receipt":{...}}),
 * plus GateKit's member last: "gatekit":{"identity":"<receipt_identity()>","testSigned":bool}.
 * request_date is the time of validation. *out_json is freed with gatekit_free.
 * Errors: GATEKIT_EINVAL (NULL), GATEKIT_ENOMEM. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_to_json(char **out_json, const gatekit_receipt *receipt);

/* 1 when a non-cancelled purchase of product_id covers at_ms (epoch milliseconds; 0: now):
 * non-consumables from their purchase date on, subscriptions from purchase to expiry;
 * consumables and cancelled (refunded, upgraded) purchases never. 0 otherwise.
 * GATEKIT_EINVAL for NULL arguments. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_is_entitled(const gatekit_receipt *receipt, const char *product_id, long long at_ms);

/* The product ids entitled at at_ms (0: now) as {"version":1,"products":["id", ...]}, each once,
 * in receipt order; *out_json is freed with gatekit_free. Returns the number of ids (>= 0) or
 * GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_active_products(char **out_json, const gatekit_receipt *receipt, long long at_ms);

/* A receipt attribute as text (see the id list above), owned by the receipt; NULL when the
 * receipt has no value, the id is not a text attribute, or receipt is NULL. */
GATEKIT_API const char *receipt_string(const gatekit_receipt *receipt, int attribute);

/* An integer attribute into *out: 1 present, 0 absent (*out = 0), GATEKIT_EINVAL for NULL or
 * an id that is not an integer attribute. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_integer(long long *out, const gatekit_receipt *receipt, int attribute);

/* A date attribute as epoch milliseconds into *out: 1 present, 0 absent, GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_date_ms(long long *out, const gatekit_receipt *receipt, int attribute);

/* Raw bytes of BUNDLE_ID (DER value), OPAQUE or HASH, owned by the receipt: 1 present
 * (*out, *out_len set), 0 absent, GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_bytes(const unsigned char **out, size_t *out_len, const gatekit_receipt *receipt, int attribute);

/* 1 when the receipt was accepted under the caller's test anchor (Xcode), 0 for an App Store
 * receipt, GATEKIT_EINVAL for NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_is_test_signed(const gatekit_receipt *receipt);

/* The receipt's replay identity: SHA-256 of its signed payload as 64 lowercase hex digits,
 * owned by the receipt. Re-encodings of one genuine receipt (BER or DER, base64 with or
 * without white space, certificates reordered or added, unsigned attributes) all verify and
 * all have this same identity: hosts that dedupe receipts dedupe on it, never on the input
 * bytes. NULL for NULL (or when memory runs out). */
GATEKIT_API const char *receipt_identity(const gatekit_receipt *receipt);

/* Number of in-app purchases (attribute 17) in receipt order, or GATEKIT_EINVAL for NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase_count(const gatekit_receipt *receipt);

/* Purchase fields by index (0 … count-1) and GATEKIT_IAP_* id, as for the receipt accessors:
 * string (NULL when absent, out of range or not a text field), integer and date (1 present,
 * 0 absent, GATEKIT_EINVAL for NULL, an index out of range or a wrong id). */
GATEKIT_API const char *receipt_purchase_string(const gatekit_receipt *receipt, size_t index, int field);
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase_integer(long long *out, const gatekit_receipt *receipt, size_t index, int field);
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase_date_ms(long long *out, const gatekit_receipt *receipt, size_t index, int field);

/* One in-app purchase at once (what bindings use: one call instead of one per field).
 * Strings are owned by the receipt (valid until receipt_free), NULL when absent; numbers are 0
 * when absent; bit (field - 1701) of present is set for every field the receipt has, e.g.
 * present & (1u << (GATEKIT_IAP_EXPIRES_DATE - 1701)). Fields are only ever appended: pass
 * sizeof(gatekit_purchase); the library fills min(out_size, its size) bytes. */
typedef struct gatekit_purchase {
    unsigned int present;
    long long quantity;
    long long product_type;
    long long web_order_line_item_id;
    long long purchase_date_ms;
    long long original_purchase_date_ms;
    long long expires_date_ms;
    long long cancellation_date_ms;
    int is_trial_period;
    int is_in_intro_offer_period;
    const char *product_id;
    const char *transaction_id;
    const char *original_transaction_id;
    const char *promotional_offer_id;
} gatekit_purchase;

/* Fills *out with purchase `index`. 0 on success; GATEKIT_EINVAL for NULL, an index out of
 * range or out_size 0. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_purchase(gatekit_purchase *out, size_t out_size, const gatekit_receipt *receipt, size_t index);

/* Parses a receipt WITHOUT deciding anything (no trust, no bundle check) and describes it as
 * JSON: container facts (encoding, digest, certificate subjects, signer found) and every
 * decoded field. Any SignedData that parses is shown; what receipt_validate() would refuse
 * before looking at trust (signed attributes, an algorithm Apple does not use, a malformed
 * payload) is listed in "refusals" as {"code":<GATEKIT_E*>,"reason":"..."}.
 * For diagnostics only. *out_json is freed with gatekit_free. Errors: GATEKIT_ERECEIPT_MALFORMED
 * (not a SignedData at all), GATEKIT_EINVAL, GATEKIT_ETOOLARGE. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_inspect(char **out_json, const void *data, size_t len);

/* verifyReceipt's status for a GateKit code: 0 for 0; 21002 malformed (MALFORMED, PAYLOAD,
 * ALGORITHM, NO_CREATION_DATE); 21007 SANDBOX; 21008 PRODUCTION; 21003 every other receipt
 * failure (authenticity, bundle, version, device, Xcode); 21009 anything else. Any thread. */
GATEKIT_API int receipt_apple_status(int code);


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
GATEKIT_API int perm_portal_status(gatekit_store *store);

/* ========================================================================================
 * Signed data (StoreKit 2 / App Store Server JWS)
 *
 * Apple signs StoreKit 2 data as compact JWS: Transaction and AppTransaction on the device,
 * App Store Server Notifications V2 and App Store Server API responses on servers. These
 * functions do what Apple's SignedDataVerifier does, offline:
 *   1. shape: three base64url parts (no padding, no white space), header "alg" exactly
 *      "ES256", "x5c" with exactly three certificates (leaf, intermediate, root);
 *   2. chain: x5c[0] -> x5c[1] -> Apple Root CA - G3 (pinned by SHA-256 fingerprint, built
 *      in; x5c[2] is never trusted), RFC 5280 path validation, leaf extension
 *      1.2.840.113635.100.6.11.1, intermediate extension 1.2.840.113635.100.6.2.1;
 *   3. time: certificates are checked at options->verify_time, or by default at the
 *      payload's own signedDate (AppTransaction: receiptCreationDate; now if absent);
 *   4. the ES256 signature (raw r||s) over "header.payload" with the leaf's key;
 *   5. the payload's bundle id, app Apple id (Production only) and environment against
 *      the options. Notifications take them from data, else summary, else
 *      externalPurchaseToken (Sandbox iff externalPurchaseId starts with "SANDBOX", else
 *      Production), else appData. Nested signed data in a notification
 *      (data.signedTransactionInfo, data.signedRenewalInfo, appData.signedAppTransactionInfo)
 *      is verified the same way and returned decoded.
 * OCSP revocation checking is not done: verification is offline (see docs/jws.md).
 *
 * Test mode: options->test_anchor_der names the one anchor trusted for that call instead
 * of Apple Root CA - G3: Apple's test root (their test chains, same length and OID rules),
 * or the certificate of StoreKit Testing in Xcode (x5c holds that one self-signed
 * certificate; pass exactly it). Without a test anchor, Xcode-signed data fails with
 * GATEKIT_EJWS_TEST_SIGNED: nothing is ever returned unverified. The shape rules are those
 * of production: three x5c certificates must be leaf -> intermediate -> test anchor with
 * Apple's OIDs (the anchor is never accepted as x5c[0] of three). Data accepted under a test
 * anchor is marked ("testSigned":true below, jws_is_test_signed()) and is refused as
 * Production data unless options->flags has the test-only GATEKIT_JWS_TEST_PRODUCTION.
 *
 * Output: *out_json is the payload exactly as signed (every member kept, unknown ones
 * included, numbers as their exact text: Xcode writes fractional milliseconds such as
 * 1697679936049.7297), plus, in notifications, the decoded nested payloads inserted as
 * "transactionInfo", "renewalInfo" and "appTransactionInfo" right after the signed strings,
 * plus one member GateKit adds last to every decoded object (nested ones included):
 *   "gatekit":{"identity":"<SHA-256 of the signed payload, 64 hex>","testSigned":false}
 * A member named "gatekit" in the signed payload itself is dropped. Hosts dedupe on
 * "identity" (see jws_identity()).
 *
 * Threads: every function may be called from any thread at once. Verified chains are
 * cached process-wide by their exact certificate bytes (bounded), so a repeated signer
 * costs one ES256 verification.
 * ====================================================================================== */

/* Signed data, JWS (-300 … -399). Each failure has its own code; gatekit_last_error()
 * names the field or certificate. Failures in nested signed data carry the nested code,
 * with the path (e.g. "data.signedTransactionInfo: ...") in the message. */
#define GATEKIT_EJWS_MALFORMED        (-300)  /* not 3 base64url parts / not JSON objects / no alg or x5c */
#define GATEKIT_EJWS_ALGORITHM        (-301)  /* header alg is not exactly "ES256" (none, HS256, RS256, ...) */
#define GATEKIT_EJWS_CHAIN_LENGTH     (-302)  /* x5c (or the built chain) is not exactly 3 certificates */
#define GATEKIT_EJWS_UNTRUSTED        (-303)  /* the chain does not lead to Apple Root CA - G3 (or the test anchor) */
#define GATEKIT_EJWS_LEAF_OID         (-304)  /* the leaf lacks extension 1.2.840.113635.100.6.11.1 */
#define GATEKIT_EJWS_INTERMEDIATE_OID (-305)  /* the intermediate lacks extension 1.2.840.113635.100.6.2.1 */
#define GATEKIT_EJWS_CERT_TIME        (-306)  /* a certificate is expired / not yet valid at the verification time */
#define GATEKIT_EJWS_SIGNATURE        (-307)  /* the ES256 signature does not verify (or is not 64 bytes) */
#define GATEKIT_EJWS_BUNDLE_ID        (-308)  /* the payload's bundle id is not options->bundle_id */
#define GATEKIT_EJWS_APP_APPLE_ID     (-309)  /* Production: the payload's appAppleId is not options->app_apple_id */
#define GATEKIT_EJWS_ENVIRONMENT      (-310)  /* the payload's environment / receiptType is not options->environment */
#define GATEKIT_EJWS_TEST_SIGNED      (-311)  /* test-signed where genuine data is required: Xcode-signed without a test anchor, or test-anchored data for Production */
#define GATEKIT_EJWS_CERTIFICATE      (-312)  /* an x5c certificate is not DER X.509 */
#define GATEKIT_EJWS_PAYLOAD_FIELD    (-313)  /* a known payload field has the wrong JSON type, or a header or payload member repeats */

#define GATEKIT_JWS_OPTIONS_VERSION 2

/* Options flags (version 2). */
#define GATEKIT_JWS_TEST_PRODUCTION 0x1u  /* TEST ONLY: accept data signed under the test anchor
                                           * whose environment is Production. Without it such data
                                           * fails with GATEKIT_EJWS_TEST_SIGNED: test-signed data
                                           * never passes as App Store data by accident. */

/* What the caller expects of the signed data. Initialise with jws_options_init(), then set
 * the members; the struct is read during the call only (not retained). */
typedef struct gatekit_jws_options {
    unsigned int version;                 /* set by jws_options_init; GATEKIT_EVERSION if unknown */
    const char *bundle_id;                /* required: the app's bundle id */
    long long app_apple_id;               /* required for Production (checked there only); 0: none */
    const char *environment;              /* required: "Production", "Sandbox", "Xcode", "LocalTesting" */
    long long verify_time;                /* Unix seconds (negative: before 1970); 0: the payload's signedDate */
    const unsigned char *test_anchor_der; /* test mode only: DER of the test root or Xcode certificate; NULL: none */
    size_t test_anchor_len;               /* bytes at test_anchor_der (at most 65536) */
    unsigned int flags;                   /* version 2: GATEKIT_JWS_* flags above; 0: none */
} gatekit_jws_options;

/* Static initialiser: gatekit_jws_options o = GATEKIT_JWS_OPTIONS_INIT; */
#define GATEKIT_JWS_OPTIONS_INIT { .version = GATEKIT_JWS_OPTIONS_VERSION }

/* Sets *options to the defaults of `version` (pass GATEKIT_JWS_OPTIONS_VERSION): zeroes
 * exactly the members that version has and sets options->version, so a newer library never
 * writes past an older caller's struct. The library reads version 1 and 2 structs.
 * 0, GATEKIT_EINVAL (NULL) or GATEKIT_EVERSION (unknown version; nothing written). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_options_init(gatekit_jws_options *options, unsigned int version);

/* sizeof(gatekit_jws_options) of the newest version, for FFI hosts that build the struct. */
GATEKIT_API size_t jws_options_size(void);

/* Verify and decode one signed datum. jws: NUL-terminated compact JWS (at most 1 MiB,
 * else GATEKIT_ETOOLARGE). On success returns 0 and *out_json is the decoded payload (see
 * "Output" above), freed with gatekit_free(); on failure *out_json is NULL.
 * Errors: GATEKIT_EINVAL (NULL argument, bad options: missing bundle_id or environment,
 * unknown environment, Production without app_apple_id, test anchor not one DER
 * certificate), GATEKIT_EVERSION, GATEKIT_ETOOLARGE, GATEKIT_ENOMEM, GATEKIT_EJWS_*.
 *   transaction:     JWSTransactionDecodedPayload; checks bundleId and environment.
 *   renewal info:    JWSRenewalInfoDecodedPayload; checks environment.
 *   notification:    ResponseBodyV2DecodedPayload; checks bundle id, app Apple id
 *                    (Production) and environment as described above; nested data too.
 *   app transaction: AppTransaction; checks bundleId, appAppleId (Production) and
 *                    receiptType as the environment. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_transaction(char **out_json, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_renewal_info(char **out_json, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_notification(char **out_json, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_app_transaction(char **out_json, const char *jws, const gatekit_jws_options *options);

/* A Retention Messaging API realtime request (the `signedPayload` the App Store posts to the
 * app's server): verified as the others, then checked as Apple's
 * verify_and_decode_realtime_request does — appAppleId in Production, the environment (the
 * payload carries no bundle id, so options->bundle_id is not compared). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify_realtime_request(char **out_json, const char *jws, const gatekit_jws_options *options);

/* Verified signed data with how it was accepted: one object for any of the five kinds.
 * Immutable; share it between threads; free it once with jws_free(). */
typedef struct gatekit_jws gatekit_jws;

#define GATEKIT_JWS_TRANSACTION      1
#define GATEKIT_JWS_RENEWAL_INFO     2
#define GATEKIT_JWS_NOTIFICATION     3
#define GATEKIT_JWS_APP_TRANSACTION  4
#define GATEKIT_JWS_REALTIME_REQUEST 5

/* Verifies jws as `kind` (GATEKIT_JWS_TRANSACTION …) exactly as jws_verify_*() do. On success
 * *out is a new object (free with jws_free); on failure *out is NULL and the code is as for
 * jws_verify_*(), or GATEKIT_EINVAL for an unknown kind. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_verify(gatekit_jws **out, int kind, const char *jws, const gatekit_jws_options *options);

/* The decoded JSON, as jws_verify_*() return it; owned by the object. NULL for NULL. */
GATEKIT_API const char *jws_json(const gatekit_jws *signed_data);

/* The replay identity: SHA-256 of the signed payload bytes, 64 lowercase hex digits; owned
 * by the object. No change outside the signed payload (a high-S twin of the ECDSA signature,
 * another certificate chain) alters it: hosts dedupe signed data on it. NULL for NULL. */
GATEKIT_API const char *jws_identity(const gatekit_jws *signed_data);

/* 1 when accepted under options->test_anchor_der (never App Store data), 0 for data Apple
 * signed, GATEKIT_EINVAL for NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_is_test_signed(const gatekit_jws *signed_data);

/* Frees the object. NULL is a no-op. */
GATEKIT_API void jws_free(gatekit_jws *signed_data);

/* Verifies a signed transaction exactly like jws_verify_transaction() and answers whether
 * it entitles the user at at_ms (Unix milliseconds; 0: now): 1 yes, 0 no, <0 an error
 * (nothing is entitled on error). No when: revoked (revocationDate or revocationReason set:
 * refunded or revoked purchases count as never made), upgraded away (isUpgraded), at_ms
 * before purchaseDate, at_ms at or after expiresDate, a consumable (type "Consumable"), a
 * transaction without productId or purchaseDate (it proves no purchase). Purchases without an
 * expiry (non-consumables) entitle from purchaseDate on. product_id: NULL for any product,
 * else the transaction's productId must equal it (0 otherwise). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_transaction_is_entitled(const char *jws, const gatekit_jws_options *options, const char *product_id, long long at_ms);

/* Test data, for a host's own tests (docs/testing.md). jws_test_pki_create() makes a test PKI
 * shaped like Apple's StoreKit 2 chain in `directory` (created 0700 when absent; an existing
 * one must be this user's and writable by no one else): root.der (the test anchor),
 * intermediate.der and leaf.der with Apple's marker OIDs, leaf.key (PKCS#8 PEM), each 0600,
 * never over an existing file. Certificates are valid 2000-01-01 to 2100-01-01.
 * jws_test_sign() signs payload_json (a JSON object with Apple's field names, signed exactly as
 * given) as `kind` (GATEKIT_JWS_*) with that PKI: *out_jws is a compact JWS with x5c
 * [leaf, intermediate, root], freed with gatekit_free. It is first verified as `kind` under the
 * PKI's root with the bundle id, app Apple id and environment the payload names, so a payload
 * GateKit would refuse fails here with that reason (GATEKIT_EJWS_*). What these sign is
 * test-signed: it verifies only with root.der as options->test_anchor_der, is marked
 * "testSigned":true, and is refused as Production data. Errors: GATEKIT_EINVAL, GATEKIT_EIO
 * (a file exists, cannot be written or read), GATEKIT_EUNSAFE (another user could write the
 * folder or a file), GATEKIT_ENOTFOUND (no PKI there), GATEKIT_ETOOLARGE (payload over 1 MiB). */
GATEKIT_API GATEKIT_WARN_UNUSED int jws_test_pki_create(const char *directory);
GATEKIT_API GATEKIT_WARN_UNUSED int jws_test_sign(char **out_jws, const char *pki_directory, int kind, const char *payload_json);

/* ========================================================================================
 * Entitlement ledger
 *
 * Is this customer entitled to this product right now, and why? The ledger lives in the store
 * and only ever ingests signed data it verifies itself in the same call (never decoded JSON):
 * App Store Server Notifications V2 (signedPayload), signed transactions
 * (signedTransactionInfo / jwsRepresentation), signed renewal infos, app receipts (each
 * purchase becomes a transaction) and AppTransactions. The options are the JWS (or receipt)
 * options of the verification; data accepted under a test anchor is kept apart from App Store
 * data and is only answered with GATEKIT_LEDGER_TEST_SIGNED. Environments are kept apart.
 *
 * A customer is an app account token or an original transaction id (a token stands for every
 * subscription whose transactions carry it). Order does not matter and repeats are harmless:
 * any permutation of the same items, each any number of times, gives the same answers.
 * Notifications dedupe on notificationUUID, every item on its replay identity; per
 * transaction (and per subscription's renewal info) the version with the newest signedDate
 * wins. The rules — status, entitlement, grace period, billing retry, refunds, upgrades,
 * family sharing, introductory offers — are in docs/ledger.md with their sources.
 *
 * Ingestion is durable when it returns (one transaction; a notification endpoint answers 200
 * only after that). Every function is safe from many threads on one handle and from many
 * processes on one store. Queries are served from a per-handle cache of the customer's
 * versions, invalidated by any write to the store (this process's or another's).
 * ====================================================================================== */

/* What ingestion did (the result of ledger_ingest_*, >= 0). */
#define GATEKIT_LEDGER_NEW         1  /* recorded, and it brought something the ledger lacked */
#define GATEKIT_LEDGER_DUPLICATE   2  /* already recorded (same signed content or notificationUUID): nothing written */
#define GATEKIT_LEDGER_SUPERSEDED  3  /* recorded in the history; what it carries was known or older: no state change */

/* Subscription statuses (Apple's numbers, as "Get All Subscription Statuses" returns them). */
#define GATEKIT_SUBSCRIPTION_ACTIVE                1
#define GATEKIT_SUBSCRIPTION_EXPIRED               2
#define GATEKIT_SUBSCRIPTION_BILLING_RETRY         3
#define GATEKIT_SUBSCRIPTION_BILLING_GRACE_PERIOD  4
#define GATEKIT_SUBSCRIPTION_REVOKED               5

/* Why a customer is (1-9) or is not (10 and up) entitled. */
#define GATEKIT_LEDGER_REASON_SUBSCRIPTION       1   /* an auto-renewable subscription period covers the instant */
#define GATEKIT_LEDGER_REASON_GRACE_PERIOD       2   /* billing failed; Apple's billing grace period still runs */
#define GATEKIT_LEDGER_REASON_NON_CONSUMABLE     3   /* a non-consumable purchase (no end) */
#define GATEKIT_LEDGER_REASON_NON_RENEWING       4   /* a non-renewing subscription covers the instant */
#define GATEKIT_LEDGER_REASON_NO_PURCHASE        10  /* nothing in the ledger matches */
#define GATEKIT_LEDGER_REASON_EXPIRED            11  /* the subscription or period ended */
#define GATEKIT_LEDGER_REASON_BILLING_RETRY      12  /* billing failed, Apple retries, no grace period left */
#define GATEKIT_LEDGER_REASON_REVOKED            13  /* refunded, or revoked (family sharing removed) */
#define GATEKIT_LEDGER_REASON_NOT_YET_PURCHASED  14  /* the purchase is after the instant */
#define GATEKIT_LEDGER_REASON_CONSUMABLE         15  /* consumables never entitle */
#define GATEKIT_LEDGER_REASON_UPGRADED           16  /* upgraded to another product of its group */
#define GATEKIT_LEDGER_REASON_ONLY_TEST_SIGNED   17  /* nothing App Store-signed matches, but data accepted
                                                      * under a test anchor does: ask with
                                                      * GATEKIT_LEDGER_TEST_SIGNED (tests), never entitled */

/* gatekit_ledger_query flags. */
#define GATEKIT_LEDGER_TEST_SIGNED 0x1u  /* answer from data accepted under a test anchor (tests
                                          * only): never mixed with App Store data */

#define GATEKIT_LEDGER_QUERY_VERSION 1u

/* Which part of the ledger a question is about, and when. Initialise with ledger_query_init(). */
typedef struct gatekit_ledger_query {
    unsigned int version;     /* set by ledger_query_init; GATEKIT_EVERSION if unknown */
    const char *environment;  /* required: "Production", "Sandbox", "Xcode" or "LocalTesting" */
    long long at_ms;          /* 0: now, from everything held. Else as of that instant (Unix ms):
                               * only what Apple had signed by then counts, so the answer is the
                               * one the ledger would have given then (audits, disputes). An
                               * instant within 2 s before the library's clock, or later, is
                               * answered as now (a host's own "now" is read before the call) */
    unsigned int flags;       /* GATEKIT_LEDGER_* flags above; 0: none */
} gatekit_ledger_query;

/* Static initialiser: gatekit_ledger_query q = GATEKIT_LEDGER_QUERY_INIT; */
#define GATEKIT_LEDGER_QUERY_INIT { .version = GATEKIT_LEDGER_QUERY_VERSION }

/* Sets *query to the defaults of `version` (pass GATEKIT_LEDGER_QUERY_VERSION): zeroes it and
 * sets its version. NULL: GATEKIT_EINVAL; an unknown version: GATEKIT_EVERSION. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_query_init(gatekit_ledger_query *query, unsigned int version);

#define GATEKIT_ENTITLEMENT_VERSION 1u

/* The details of an entitlement answer (ledger_is_entitled). The caller sets version to
 * GATEKIT_ENTITLEMENT_VERSION; the library fills that version's members. Product and
 * transaction ids come with ledger_entitlement() (JSON). */
typedef struct gatekit_entitlement {
    unsigned int version;     /* in: GATEKIT_ENTITLEMENT_VERSION */
    int entitled;             /* 1 or 0, as returned */
    int reason;               /* GATEKIT_LEDGER_REASON_* */
    int status;               /* the subscription's GATEKIT_SUBSCRIPTION_*, 0 when not a subscription */
    int family_shared;        /* 1: the deciding purchase came through Family Sharing */
    long long since_ms;       /* purchase date of the deciding transaction; 0 when none */
    long long until_ms;       /* when the entitlement ends (expiry, grace period end); 0: no end, or not entitled */
} gatekit_entitlement;

/* Ingest: verify the signed datum exactly as jws_verify_*() does with the same options, then
 * record it and the versions it carries in one durable transaction. Returns
 * GATEKIT_LEDGER_NEW, _DUPLICATE or _SUPERSEDED (>= 0), or a negative error (the store is
 * unchanged): every GATEKIT_EJWS_* code, GATEKIT_EJWS_PAYLOAD_FIELD when a transaction lacks
 * transactionId, originalTransactionId, productId or signedDate (a renewal info
 * originalTransactionId or signedDate), store errors. out_json (may be NULL) receives
 * {"version":1,"outcome":"new","kind":"notification","environment":...,"testSigned":...,
 * "identity":...,"notificationType":...,"subtype":...,"notificationUUID":...,"customer":...,
 * "appAccountToken":...,"originalTransactionIds":[...],"statusChanges":[{"originalTransactionId":
 * ...,"subscriptionGroupIdentifier":...,"from":1,"to":4}]}, freed with gatekit_free.
 * Notifications of every type are recorded; their data decides the state, never the type
 * alone (summary, external-purchase, app-data and TEST notifications change nothing). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_notification(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_transaction(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_renewal_info(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);
/* An AppTransaction is recorded in the history and changes no entitlement. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_app_transaction(char **out_json, gatekit_store *store, const char *jws, const gatekit_jws_options *options);

/* Several signed items of one kind (GATEKIT_JWS_TRANSACTION, _RENEWAL_INFO, _NOTIFICATION or
 * _APP_TRANSACTION) recorded together in one durable transaction: a page of the App Store
 * Server API's transaction history, a backlog of notifications. Each item is verified exactly
 * as the single-item function would; one that fails is reported in its place and skipped.
 * Returns how many items were recorded (new or superseded; duplicates are not), or < 0 when
 * nothing was written (GATEKIT_EINVAL: a bad kind, NULL jws with count > 0, a NULL item, more
 * than 10000 items; GATEKIT_ETOOLARGE: more than 64 MiB of text in all; store errors).
 * out_json (may be NULL): {"version":1,"results":[...]} in input order, each the single-item
 * report or {"error":-307,"message":"..."}. One fsync for the whole batch instead of one per
 * item (figures in BENCHMARKS.md). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_batch(char **out_json, gatekit_store *store, int kind, const char *const *jws, size_t count, const gatekit_jws_options *options);

/* Ingest an app receipt: validate it exactly as receipt_validate() does, then record each
 * in-app purchase as a version of its transaction signed at the receipt's creation date.
 * Receipts carry no subscription group ids: a purchase takes its product's group from signed
 * transactions of that product in the ledger. Results and errors as above, plus every
 * GATEKIT_ERECEIPT_* code. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_ingest_receipt(char **out_json, gatekit_store *store, const void *data, size_t len, const gatekit_receipt_options *options);

/* 1 when the customer is entitled to product_or_group (a product id, or a subscription group
 * id: any product of it) at query->at_ms, 0 when not, < 0 on error (never entitled on error).
 * out (may be NULL) receives the reason, status and dates. The fast path: answered from memory
 * when this handle has the customer's versions cached (figures: BENCHMARKS.md). Errors: GATEKIT_EINVAL (NULL store, query, customer or
 * product_or_group; a customer of 0 or over 256 bytes), GATEKIT_EVERSION (query or out
 * version), store errors. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_is_entitled(gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *product_or_group, gatekit_entitlement *out);

/* The same answer as JSON: {"version":1,"entitled":true,"reason":"grace-period","productId":...,
 * "subscriptionGroupIdentifier":...,"transactionId":...,"originalTransactionId":...,"status":4,
 * "familyShared":false,"since":ms,"until":ms}. Members that do not apply are absent. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_entitlement(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *product_or_group);

/* Every product the customer is entitled to at the instant, once each (its longest-lasting
 * entitlement), ordered by product id: {"version":1,"entitlements":[{...as above...}]}. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_active(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer);

/* The customer's subscriptions as the App Store Server API's "Get All Subscription Statuses"
 * returns them: {"version":1,"environment":...,"testSigned":...,"data":[{
 * "subscriptionGroupIdentifier":...,"lastTransactions":[{"status":1,"originalTransactionId":...,
 * "signedTransactionInfo":...,"signedRenewalInfo":...,"gatekit":{...}}]}]}. The signed strings
 * are the ones the status was computed from (absent for receipt purchases). group: NULL for
 * every group. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_subscription_status(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *group);

/* 1 when the customer may be offered the introductory offer of subscription group `group`
 * (they never had a subscription or an introductory offer in it), 0 when not, < 0 on error. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_intro_eligible(gatekit_store *store, const gatekit_ledger_query *query, const char *customer, const char *group);

/* The history as JSON, oldest first: every ingested item with its decoded payload and every
 * status change with the item that caused it: {"version":1,"environment":...,"testSigned":...,
 * "items":[{"id":1,"kind":"notification","identity":...,"notificationUUID":...,
 * "notificationType":...,"subtype":...,"signedDate":ms,"ingestedAt":ms,"outcome":"new",
 * "originalTransactionIds":[...],"payload":{...}}],"statusChanges":[{"originalTransactionId":
 * ...,"subscriptionGroupIdentifier":...,"from":null,"to":1,"item":1,"at":ms}]}. customer: NULL
 * for every item of the environment. query->at_ms is not used. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_history(char **out_json, gatekit_store *store, const gatekit_ledger_query *query, const char *customer);

/* From a receipt alone (as TPInAppReceipt does): 1 when none of its purchases is of one of the
 * `count` product ids of a subscription group (so its introductory offer may be shown), 0
 * when one is, < 0 on error (GATEKIT_EINVAL: NULL receipt, NULL product_ids with count > 0,
 * a NULL or non-UTF-8 id). */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_intro_eligible(const gatekit_receipt *receipt, const char *const *product_ids, size_t count);

/* ========================================================================================
 * App Store signing (offline)
 *
 * What Apple's App Store Server Library signs, with an App Store Connect private key (the .p8
 * file: PKCS#8 PEM, EC P-256), in C: the promotional offer signature of StoreKit's original
 * API, the signed requests of StoreKit (promotional offer V2, introductory-offer eligibility,
 * Advanced Commerce in-app requests) and the App Store Server API bearer token. Everything is
 * ES256 by OpenSSL; nothing leaves the machine. Details and Apple's matching names:
 * docs/appstore.md.
 *
 * A gatekit_appstore_key is immutable apart from its token cache: share it between threads.
 * Strings returned are freed with gatekit_free.
 * ====================================================================================== */

#define GATEKIT_EAPPSTORE_KEY       (-400)  /* the key is not a PKCS#8 PEM private key (encrypted keys are refused) */
#define GATEKIT_EAPPSTORE_KEY_TYPE  (-401)  /* a private key, but not EC P-256 */

typedef struct gatekit_appstore_key gatekit_appstore_key;

/* Loads a key: pem is the .p8 file's bytes (at most 64 KiB); key_id its id in App Store
 * Connect; issuer_id the issuer id of App Store Connect's Keys page (NULL when only
 * promotional offers V1 are signed); bundle_id the app's. *out is freed with
 * appstore_key_free. Errors: GATEKIT_EAPPSTORE_KEY, GATEKIT_EAPPSTORE_KEY_TYPE, GATEKIT_EINVAL. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_key_load(gatekit_appstore_key **out, const void *pem, size_t pem_len, const char *key_id, const char *issuer_id, const char *bundle_id);

/* Frees a key. NULL is a no-op. */
GATEKIT_API void appstore_key_free(gatekit_appstore_key *key);

/* The promotional offer signature (StoreKit's original API, Apple's
 * PromotionalOfferSignatureCreator): base64 of the DER ECDSA signature over bundle id, key id,
 * product_identifier, subscription_offer_id, application_username (lowercased; "" allowed),
 * nonce (a UUID, lowercased) and timestamp_ms, joined by U+2063. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_promotional_offer_signature(char **out_base64, const gatekit_appstore_key *key, const char *product_identifier, const char *subscription_offer_id, const char *application_username, const char *nonce, long long timestamp_ms);

/* Signed requests (compact JWS, header {"alg":"ES256","kid":key id,"typ":"JWT"}; claims the
 * feature's own plus bid, iss, aud, iat and a fresh random nonce), as Apple's
 * PromotionalOfferV2SignatureCreator (aud "promotional-offer"; transaction_id may be NULL),
 * IntroductoryOfferEligibilitySignatureCreator (aud "introductory-offer-eligibility";
 * allow_introductory_offer 0 or 1) and AdvancedCommerceAPIInAppSignatureCreator (aud
 * "advanced-commerce-api"; request_json one JSON object, sent as the base64 of that text as given).
 * They need the key's issuer_id (GATEKIT_EINVAL without). */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_promotional_offer_v2_signature(char **out_jws, const gatekit_appstore_key *key, const char *product_id, const char *offer_identifier, const char *transaction_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_intro_eligibility_signature(char **out_jws, const gatekit_appstore_key *key, const char *product_id, int allow_introductory_offer, const char *transaction_id);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_advanced_commerce_signature(char **out_jws, const gatekit_appstore_key *key, const char *request_json);

/* The App Store Server API bearer token: an ES256 JWT with iss, iat, exp (iat + lifetime_s,
 * 1 to 3600; Apple refuses longer), aud "appstoreconnect-v1", bid; kid in the header. A token is
 * reused (per key and lifetime) until a quarter of its lifetime is left, so a busy client signs
 * about once per lifetime. Needs the key's issuer_id. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_api_token(char **out_jwt, const gatekit_appstore_key *key, int lifetime_s);

/* Apple's ReceiptUtility, WITHOUT validation: for calling the App Store Server API only, never
 * for an entitlement decision. receipt_transaction_id: the first in-app purchase's transaction
 * id (else its original transaction id) of an app receipt (DER, BER or base64, as
 * receipt_validate takes it): 1 with *out set, 0 with *out NULL when there is no purchase,
 * GATEKIT_ERECEIPT_MALFORMED / _PAYLOAD when it does not parse. receipt_legacy_transaction_id:
 * the transaction-id of a legacy transaction receipt (base64 of an old-style plist with
 * "purchase-info"): 1 / 0 likewise, GATEKIT_ERECEIPT_MALFORMED when it is not base64. */
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_transaction_id(char **out, const void *data, size_t len);
GATEKIT_API GATEKIT_WARN_UNUSED int receipt_legacy_transaction_id(char **out, const char *transaction_receipt);

/* ========================================================================================
 * App Store Server API client
 *
 * Every endpoint of Apple's AppStoreServerAPIClient, one function each, with Apple's paths
 * and semantics (developer.apple.com/documentation/appstoreserverapi). Requests carry a bearer
 * token from the key (appstore_api_token, reused until near expiry) and go over HTTPS with
 * libcurl (loaded on the first appstore_client_new; Debian libcurl4): the server's certificate
 * and name are always verified, only https:// is spoken, redirects are not followed.
 *
 * Every endpoint function returns 0 on success and writes:
 *   *out_json     Apple's answer body as sent (NULL when the answer has none); may be NULL
 *                 when not wanted;
 *   *out_decoded  with options->verify set: the same document with every signed member
 *                 (signedTransactionInfo, signedTransactions[], signedRenewalInfo,
 *                 signedAppTransactionInfo, signedPayload, at any depth) replaced by its
 *                 verified payload (as jws_verify_* gives it); NULL in raw mode; may be NULL.
 * With options->verify set, every signed member is verified before anything is returned,
 * whether or not out_decoded is asked for: one that fails fails the call with its
 * GATEKIT_EJWS_* code and its path in gatekit_last_error() ("signedTransactions[2]: ...").
 * When Apple answers with an error, the call returns GATEKIT_EAPPSTORE_API and *out_json
 * (when given) is {"httpStatus":404,"errorCode":4040010,"errorMessage":"...",
 * "retryable":false,"retryAfter":null} (errorCode / errorMessage null when the body has none;
 * Apple's codes: developer.apple.com/documentation/appstoreserverapi/error_codes).
 * A 429 or one of Apple's retryable errors is retried up to options->max_retries times, after
 * Retry-After (or 0.5 s, 1 s, ...) when that is at most options->max_retry_wait_ms; a request
 * that got no answer (GATEKIT_EAPPSTORE_TRANSPORT) is never retried, as it may have been done.
 *
 * Request bodies (request_json) are Apple's request objects as JSON text, sent as given (one
 * object, at most 1 MiB). Path arguments are percent-encoded. A client may be shared between
 * threads; each call blocks its thread until the answer (or the timeout). Strings returned
 * are freed with gatekit_free.
 * ====================================================================================== */

#define GATEKIT_EAPPSTORE_API        (-402)  /* Apple answered with an error status; *out_json describes it (above) */
#define GATEKIT_EAPPSTORE_TRANSPORT  (-403)  /* no answer: DNS, connection, TLS (an untrusted or misnamed server), timeout; or libcurl missing */
#define GATEKIT_EAPPSTORE_RESPONSE   (-404)  /* a success answer that is not a JSON object, a signed member that is not a string, or over 16 MiB */

#define GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION 1u

typedef struct gatekit_appstore_client_options {
    unsigned int version;               /* set by appstore_client_options_init */
    const char *environment;            /* required: "Production", "Sandbox" or "LocalTesting" */
    const char *base_url;               /* NULL: Apple's for the environment; else an https:// URL (a stand-in, a proxy) */
    const char *ca_file;                /* NULL: the system's CAs; else a PEM file to trust instead, read once by appstore_client_new (a regular file, not a symbolic link, in folders no other user can write) */
    int timeout_ms;                     /* the whole call, retries and their waits included, 1 to 600000; init: 30000 */
    int connect_timeout_ms;             /* 1 to 600000; init: 10000 */
    int max_retries;                    /* 0 to 10; init: 2 */
    int max_retry_wait_ms;              /* longest wait before a retry, 0 to 600000; init: 30000 */
    const gatekit_jws_options *verify;  /* NULL: raw mode; else how signed members are verified (its environment must be the client's) */
} gatekit_appstore_client_options;

typedef struct gatekit_appstore_client gatekit_appstore_client;

/* Static initialiser with the same defaults: gatekit_appstore_client_options o =
 * GATEKIT_APPSTORE_CLIENT_OPTIONS_INIT; then set o.environment. */
#define GATEKIT_APPSTORE_CLIENT_OPTIONS_INIT \
    { .version = GATEKIT_APPSTORE_CLIENT_OPTIONS_VERSION, .timeout_ms = 30000, .connect_timeout_ms = 10000, \
      .max_retries = 2, .max_retry_wait_ms = 30000 }

/* Sets version and the defaults above (environment NULL: the caller sets it). */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_client_options_init(gatekit_appstore_client_options *options, unsigned int version);

/* Makes a client for the key (which needs its issuer_id; the client keeps its own reference,
 * so the key may be freed after). Errors: GATEKIT_EINVAL (Xcode, a bad option, no issuer_id),
 * GATEKIT_ENOTFOUND / GATEKIT_EIO / GATEKIT_EUNSAFE (ca_file), GATEKIT_EAPPSTORE_TRANSPORT
 * (libcurl cannot be loaded). *out is freed with appstore_client_free. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_client_new(gatekit_appstore_client **out, const gatekit_appstore_key *key, const gatekit_appstore_client_options *options);

/* Frees a client (no call may be running on it). NULL is a no-op. */
GATEKIT_API void appstore_client_free(gatekit_appstore_client *client);

/* Transactions and subscriptions. transaction_id: any transactionId, originalTransactionId or
 * appTransactionId of the customer. revision / pagination_token: NULL on the first page.
 * history_request_json: Apple's TransactionHistoryRequest ({"startDate":ms,"endDate":ms,
 * "productIds":[...],"productTypes":[...],"sort":"ASCENDING","subscriptionGroupIdentifiers":
 * [...],"inAppOwnershipType":"PURCHASED","revoked":false}; NULL: none), sent as query
 * parameters; version 1 or 2 (Apple recommends 2). statuses: Apple's Status numbers (1 active,
 * 2 expired, 3 billing retry, 4 grace period, 5 revoked); count 0: all. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_transaction_info(gatekit_appstore_client *client, const char *transaction_id, char **out_json, char **out_decoded);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_transaction_history(gatekit_appstore_client *client, const char *transaction_id, const char *revision, const char *history_request_json, int version, char **out_json, char **out_decoded);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_all_subscription_statuses(gatekit_appstore_client *client, const char *transaction_id, const int *statuses, size_t count, char **out_json, char **out_decoded);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_refund_history(gatekit_appstore_client *client, const char *transaction_id, const char *revision, char **out_json, char **out_decoded);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_look_up_order_id(gatekit_appstore_client *client, const char *order_id, char **out_json, char **out_decoded);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_app_transaction_info(gatekit_appstore_client *client, const char *transaction_id, char **out_json, char **out_decoded);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_finish_transaction(gatekit_appstore_client *client, const char *transaction_id, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_send_consumption_information(gatekit_appstore_client *client, const char *transaction_id, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_send_consumption_data(gatekit_appstore_client *client, const char *transaction_id, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_set_app_account_token(gatekit_appstore_client *client, const char *original_transaction_id, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_extend_subscription_renewal_date(gatekit_appstore_client *client, const char *original_transaction_id, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_extend_renewal_date_for_all_active_subscribers(gatekit_appstore_client *client, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_status_of_subscription_renewal_date_extensions(gatekit_appstore_client *client, const char *request_identifier, const char *product_id, char **out_json);

/* Notifications. notification_history_request_json: Apple's NotificationHistoryRequest. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_notification_history(gatekit_appstore_client *client, const char *pagination_token, const char *notification_history_request_json, char **out_json, char **out_decoded);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_request_test_notification(gatekit_appstore_client *client, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_test_notification_status(gatekit_appstore_client *client, const char *test_notification_token, char **out_json, char **out_decoded);

/* Retention messaging. Identifiers are UUIDs. image: PNG bytes (1 byte to 16 MiB);
 * image_size "FULL_SIZE", "BULLET_POINT" or NULL. */
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_upload_image(gatekit_appstore_client *client, const char *image_identifier, const void *image, size_t image_len, const char *image_size, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_image(gatekit_appstore_client *client, const char *image_identifier, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_image_list(gatekit_appstore_client *client, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_upload_message(gatekit_appstore_client *client, const char *message_identifier, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_message(gatekit_appstore_client *client, const char *message_identifier, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_message_list(gatekit_appstore_client *client, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_configure_default_message(gatekit_appstore_client *client, const char *product_id, const char *locale, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_default_message(gatekit_appstore_client *client, const char *product_id, const char *locale, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_default_message(gatekit_appstore_client *client, const char *product_id, const char *locale, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_configure_realtime_url(gatekit_appstore_client *client, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_delete_realtime_url(gatekit_appstore_client *client, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_realtime_url(gatekit_appstore_client *client, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_initiate_performance_test(gatekit_appstore_client *client, const char *request_json, char **out_json);
GATEKIT_API GATEKIT_WARN_UNUSED int appstore_get_performance_test_results(gatekit_appstore_client *client, const char *request_id, char **out_json);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_H */
