/* gatekit/errors.h — error codes, the last error, memory.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_ERRORS_H
#define GATEKIT_ERRORS_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

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
#define GATEKIT_EUNSAFE         (-13)  /* a file GateKit relies on (the store, a signing key, a CA file) or its
                                          * folder is a symbolic link, or another user owns or can write it
                                          * (left untouched); the message names the file */
#define GATEKIT_ECONNECTION     (-14)  /* PostgreSQL store: the server cannot be reached, refused the login, or the connection broke; nothing was written (the next call reconnects) */
#define GATEKIT_EUNCERTAIN      (-15)  /* PostgreSQL store: the connection broke during COMMIT, so the write may or may not be recorded; retrying it is safe (every write is idempotent or append-only) */
#define GATEKIT_EFORKED         (-16)  /* the store handle was opened before this process forked: it belongs to the parent (its connection, its locks); open the store again in the child */

/* Receipts (-100 … -199): gatekit/receipt.h. */
/* Permissions (-200 … -299): gatekit/perm.h. */
/* Signed data, JWS (-300 … -399): gatekit/jws.h. */
/* App Store signing and server API (-400 … -499): gatekit/appstore_sign.h, gatekit/appstore_api.h. */
/* Stripe (-800 … -899): gatekit/stripe.h. */
/* Standard Webhooks (-900 … -999): gatekit/webhooks.h. */

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

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_ERRORS_H */
