/* The ledger benches' question (ledger_is_entitled by entitlement name) beside a raw indexed
 * read of the same customer's rows: warm (one customer asked again and again) and cold (every
 * customer once, in a prime stride). Each bench names its customers (`customer_id`). */
#ifndef BENCH_LEDGER_LOOKUP_H
#define BENCH_LEDGER_LOOKUP_H

#include <gatekit.h>
#include <sqlite3.h>
#include <stddef.h>

typedef struct lookup_ctx {
    gatekit_store *store;
    gatekit_ledger_query q;
    long customers, next;
    int warm, kind;          /* kind: which of the bench's stores the customers are of */
    sqlite3_stmt *raw;       /* the raw read, its ?1 the customer */
    void (*customer_id)(int kind, long n, char *out, size_t cap);
} lookup_ctx;

static void lookup_customer(lookup_ctx *c, char *out, size_t cap) {
    long n = c->warm ? 7 : (c->next++ * 7919) % c->customers;  /* 7919 is prime: every customer once */
    c->customer_id(c->kind, n, out, cap);
}

static int body_entitled(void *p) {
    lookup_ctx *c = p;
    char customer[64];
    lookup_customer(c, customer, sizeof customer);
    gatekit_entitlement e = {.version = GATEKIT_ENTITLEMENT_VERSION};
    return ledger_is_entitled(&e, c->store, &c->q, customer, "pro") != 1;
}

static int body_raw(void *p) {
    lookup_ctx *c = p;
    char customer[64];
    lookup_customer(c, customer, sizeof customer);
    sqlite3_bind_text(c->raw, 1, customer, -1, SQLITE_TRANSIENT);
    int rows = 0;
    while (sqlite3_step(c->raw) == SQLITE_ROW) rows++;
    sqlite3_reset(c->raw);
    return rows == 0;
}

#endif
