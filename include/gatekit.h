/*
 * gatekit.h — GateKit's public C API. This header and the domain headers it includes
 * (include/gatekit/<domain>.h) are the contract: if a function, type or constant is not declared
 * there, it is not part of the API. Include this one; the domains are split only to keep each
 * readable on its own, as libgit2 does.
 *
 * GateKit decides, at launch and at every purchase, what a user may do:
 *   - EULA gating: has this user accepted this exact text (its SHA-256)?
 *   - App Store receipts: did Apple really sell this product?
 *   - Google Play: what does the Play Developer API say the user bought (gatekit/play.h)?
 *   - Permissions: may the app ask for this permission now?
 *
 * Conventions (every function of the domain headers follows them unless its comment says otherwise):
 *   - A function that can fail returns int: 0 (or a documented positive result) on success,
 *     a negative GATEKIT_E* code on failure. gatekit_last_error() then describes the failure
 *     for the calling thread. Codes never change meaning; new codes are only ever added.
 *   - Output parameters come first, and their names start with out: `out` for the one
 *     handle, struct or number a function exists to fill (gatekit_store **out,
 *     gatekit_entitlement *out); `out_<what>` for text in a named form (out_json for a JSON
 *     document, out_jws, out_jwt, out_html, out_base64, out_transaction_id, …) and for a
 *     number beside the result (out_len, out_count, out_token). scripts/gen-abi.py checks it,
 *     and the rest of these conventions it can check.
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
 *     Output structs (gatekit_entitlement, gatekit_purchase, gatekit_eula_presentation) start
 *     with it too: the caller sets it to the header's GATEKIT_*_VERSION and the library fills
 *     only that version's members.
 *   - Exported names are short and prefixed by area (gatekit_, eula_, receipt_, perm_, jws_,
 *     ledger_, appstore_, play_, stripe_, webhook_): the names the library was asked to export; the prefixes keep them
 *     apart from a host's. python/tests/test_package.py checks that every function has one.
 *   - Thread safety is stated per object: gatekit_store is safe to share between threads;
 *     the static functions are safe from any thread.
 *
 * Link with `pkg-config --cflags --libs gatekit`.
 */
#ifndef GATEKIT_H
#define GATEKIT_H

#include "gatekit/common.h"
#include "gatekit/errors.h"
#include "gatekit/store.h"
#include "gatekit/eula.h"
#include "gatekit/receipt.h"
#include "gatekit/perm.h"
#include "gatekit/jws.h"
#include "gatekit/ledger.h"
#include "gatekit/appstore_sign.h"
#include "gatekit/appstore_api.h"
#include "gatekit/ledger_sync.h"
#include "gatekit/ledger_insight.h"
#include "gatekit/play.h"
#include "gatekit/ledger_play.h"
#include "gatekit/ledger_grant.h"
#include "gatekit/stripe.h"
#include "gatekit/ledger_stripe.h"
#include "gatekit/webhooks.h"
#include "gatekit/ledger_webhooks.h"

#endif /* GATEKIT_H */
