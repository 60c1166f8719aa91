/* gatekit/ledger_grant.h — support grants: entitlements given by hand, in the entitlement ledger.
 * Part of the API <gatekit.h> declares: a host includes that header, which includes this one. */
#ifndef GATEKIT_LEDGER_GRANT_H
#define GATEKIT_LEDGER_GRANT_H

#include "ledger.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ========================================================================================
 * Support grants (since 0.3.0)
 *
 * Support gives a customer an entitlement by hand (a goodwill month, a reviewer's access, a
 * refund made good) — docs/ledger.md, "Support grants". A grant answers ledger_is_entitled,
 * ledger_entitlement and ledger_active like a purchase, with "store": "grant", "grantedBy"
 * and "note" in the answer's JSON; it enters the change feed, the history and the customer
 * report; the metrics never count it (nobody paid). A revocation is a newer version: a
 * question as of an instant before it is answered as it was then.
 *
 * The grant is to exactly one of app_user_id (the host's own user id: the grant follows the
 * app account, whatever happens to its purchases) or customer (an app account token, or an
 * original transaction id). environment: "Production" or "Sandbox" (as for ledger_link).
 * granted_by: who gives or revokes it, 1 to 256 bytes of text on one line ("support:jane");
 * note: why, 1 to 1024 bytes, or NULL. The JSON a call receives:
 * {"version":1,"grantId":"grant-<32 hex>","environment":...,"entitlement":"pro",
 *  "appUserId":...|"customer":...,"from":ms,"until":ms|null,"grantedBy":...,"note":...,
 *  "revokedAt":ms|null}
 * ====================================================================================== */

/* Since 0.3.0. Gives `entitlement` from from_ms (0: now) until until_ms (0: for good; else
 * after from_ms). When a catalog is in effect (ledger_declare_catalog) the name must be one of
 * its entitlement names: a typo is refused with the nearest name. Returns GATEKIT_OK with the
 * grant's JSON in *out_json (free with gatekit_free), or < 0 with nothing recorded:
 * GATEKIT_EINVAL (NULL or empty arguments, both or neither of app_user_id and customer, an
 * unknown environment, a name the catalog does not give, until_ms not after from_ms), store
 * errors. */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_grant(char **out_json, gatekit_store *store, const char *environment,
                                                 const char *entitlement, const char *app_user_id, const char *customer,
                                                 long long from_ms, long long until_ms, const char *granted_by, const char *note);

/* Since 0.3.0. Revokes the grant from at_ms (0: now). Returns 1 (revoked), 0 (it was revoked
 * before: nothing recorded) with the grant's JSON in *out_json, or < 0: GATEKIT_ENOTFOUND (no
 * such grant in the environment), GATEKIT_EINVAL, store errors. granted_by and note say who
 * revokes it and why (kept in the history). */
GATEKIT_API GATEKIT_WARN_UNUSED int ledger_revoke_grant(char **out_json, gatekit_store *store, const char *environment,
                                                        const char *grant_id, long long at_ms, const char *granted_by,
                                                        const char *note);

#ifdef __cplusplus
}
#endif

#endif /* GATEKIT_LEDGER_GRANT_H */
