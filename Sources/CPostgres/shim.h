#ifndef GATEKIT_CPOSTGRES_SHIM_H
#define GATEKIT_CPOSTGRES_SHIM_H
/* libpq (Debian libpq-dev) for the PostgreSQL store, loaded with dlopen on the first
 * postgresql:// open: a host that only uses SQLite never pays for loading libpq and the
 * libraries it pulls in (libssl, GSSAPI, LDAP), and libgatekit does not need libpq5 installed
 * to run. The prototypes come from libpq's own header, so every call is type-checked. Write
 * transactions use pipeline mode (libpq 14 or later). */
#include <postgresql/libpq-fe.h>
#include <dlfcn.h>
#include <stddef.h>

#define GK_PQ_FUNCTIONS(X) \
    X(PQconnectdbParams) X(PQconninfoParse) X(PQconninfoFree) X(PQstatus) X(PQerrorMessage) \
    X(PQfinish) X(PQreset) X(PQexec) X(PQexecParams) X(PQprepare) X(PQexecPrepared) X(PQresultStatus) \
    X(PQresultErrorField) X(PQresultErrorMessage) X(PQclear) X(PQntuples) X(PQnfields) X(PQgetvalue) \
    X(PQgetlength) X(PQgetisnull) X(PQconsumeInput) X(PQnotifies) X(PQfreemem) X(PQsocket) \
    X(PQbackendPID) X(PQuser) X(PQhost) X(PQport) X(PQdb) X(PQtransactionStatus) X(PQunescapeBytea) \
    X(PQserverVersion) X(PQsslInUse) X(PQlibVersion) X(PQsetNoticeReceiver) X(PQcmdTuples) \
    X(PQenterPipelineMode) X(PQexitPipelineMode) X(PQpipelineSync) X(PQsendFlushRequest) X(PQflush) \
    X(PQsendQueryParams) X(PQsendPrepare) X(PQsendQueryPrepared) X(PQgetResult)

#define GK_PQ_FIELD(name) __typeof__(name) *_Nonnull name;
/* Every libpq function GateKit calls (non-null once gk_pq_bind succeeded). */
typedef struct gk_pq { GK_PQ_FUNCTIONS(GK_PQ_FIELD) } gk_pq;
#undef GK_PQ_FIELD

/* Fills `out` from an open libpq handle; returns the name of the first missing symbol, or NULL. */
static inline const char *gk_pq_bind(void *library, gk_pq *out) {
    void *symbol;
#define GK_PQ_BIND(name) \
    if (!(symbol = dlsym(library, #name))) return #name; \
    out->name = (__typeof__(name) *)symbol;
    GK_PQ_FUNCTIONS(GK_PQ_BIND)
#undef GK_PQ_BIND
    return NULL;
}

/* A notice receiver that drops the server's notices (they would go to stderr). */
static inline void gk_pq_ignore_notice(void *arg, const PGresult *res) { (void)arg; (void)res; }

#endif
