/* Webhooks to a team's backend from C (<gatekit/ledger_webhooks.h>): an endpoint registered (a
 * private address refused unless allowed), changed, its secret rolled; a change queued in the
 * transaction that records it; a worker's attempt at a receiver that is not there recorded as a
 * failure with its error; a delivery thread started and stopped; the report, the Prometheus text
 * and a replay. python/tests/test_ledger_webhooks.py delivers to a real receiver. */
#include "check.h"

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char folder[] = "/tmp/gatekit-c-ledger-webhooks-XXXXXX";

/* A loopback port nothing listens on: bound, then closed. */
static int closed_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        perror("socket");
        exit(2);
    }
    close(fd);
    return ntohs(a.sin_port);
}

static void subscription(char *out, size_t size, const char *id, long long now_s) {
    snprintf(out, size,
             "{\"id\":\"%s\",\"object\":\"subscription\",\"customer\":\"cus_%s\",\"status\":\"active\",\"livemode\":true,"
             "\"start_date\":%lld,\"cancel_at_period_end\":false,\"cancel_at\":null,\"ended_at\":null,\"pause_collection\":null,"
             "\"metadata\":{\"app_user_id\":\"alice\"},\"items\":{\"object\":\"list\",\"has_more\":false,\"data\":[{\"id\":\"si_%s\","
             "\"object\":\"subscription_item\",\"quantity\":1,\"current_period_start\":%lld,\"current_period_end\":%lld,"
             "\"price\":{\"id\":\"price_m\",\"object\":\"price\",\"product\":\"prod_pro\",\"currency\":\"usd\",\"unit_amount\":999,"
             "\"recurring\":{\"interval\":\"month\",\"interval_count\":1}}}]}}",
             id, id, now_s - 86400, id, now_s - 86400, now_s + 29 * 86400);
}

/* The value of "id" in an endpoint's JSON, copied into out. */
static void endpoint_id(const char *json, char *out, size_t size) {
    const char *p = strstr(json, "\"id\":\"");
    CHECK(p != NULL);
    if (!p) { out[0] = 0; return; }
    p += 6;
    size_t n = strcspn(p, "\"");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
}

int main(int argc, char **argv) {
    (void)argc;
    check_disable_swift_backtracer(argv);
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    char path[600], url[128], id[80], body[2048];
    snprintf(path, sizeof path, "%s/hooks.sqlite", folder);
    gatekit_store *store = NULL;
    CHECK_RC(check_store_open(&store, path), GATEKIT_OK);
    int port = closed_port();
    snprintf(url, sizeof url, "https://127.0.0.1:%d/hooks", port);

    /* Registered: a loopback address only when allowed; an unknown event type named. */
    char *json = NULL;
    const char *types[] = {"renewal", "expiration", "initial_purchase"};
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, url, types, 3, "c test", 0), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "not a public address") != NULL);
    const char *typo[] = {"renewl"};
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, url, typo, 1, NULL, GATEKIT_WEBHOOK_ALLOW_PRIVATE), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "did you mean \"renewal\"") != NULL);
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, "http://hooks.example.com/x", NULL, 0, NULL, 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, "http://127.0.0.1:9/x", NULL, 0, NULL, GATEKIT_WEBHOOK_ALLOW_PRIVATE), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP") != NULL);
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, "http://192.168.1.1/x", NULL, 0, NULL,
                                         GATEKIT_WEBHOOK_ALLOW_PRIVATE | GATEKIT_WEBHOOK_ALLOW_LOOPBACK_HTTP), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "not a loopback address") != NULL);
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, url, NULL, 0, NULL, 4), GATEKIT_EINVAL);
    CHECK(strstr(gatekit_last_error(), "unknown bits") != NULL);
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, url, types, 3, "c test", GATEKIT_WEBHOOK_ALLOW_PRIVATE), GATEKIT_OK);
    CHECK(json && strstr(json, "\"secret\":\"whsec_") && strstr(json, "\"eventTypes\":[\"renewal\",\"expiration\",\"initial_purchase\"]"));
    endpoint_id(json, id, sizeof id);
    CHECK(strncmp(id, "ep_", 3) == 0);
    gatekit_free(json);

    /* Changed, its secret rolled with an overlap. */
    CHECK_RC(ledger_webhook_endpoint_update(&json, store, id, "{\"description\":\"billing\",\"eventTypes\":[]}", 0), GATEKIT_OK);
    CHECK(json && strstr(json, "\"description\":\"billing\"") && strstr(json, "\"eventTypes\":[]") && !strstr(json, "secret"));
    gatekit_free(json);
    CHECK_RC(ledger_webhook_endpoint_update(&json, store, "ep_none", "{}", 0), GATEKIT_ENOTFOUND);
    CHECK_RC(ledger_webhook_endpoint_update(&json, store, id, "{\"colour\":1}", 0), GATEKIT_EINVAL);
    CHECK_RC(ledger_webhook_secret_roll(&json, store, id, 3600000), GATEKIT_OK);
    CHECK(json && strstr(json, "\"secret\":\"whsec_") && strstr(json, "\"previousSecretUntil\":"));
    gatekit_free(json);

    /* A change is queued in the transaction that records it: one pending delivery. */
    long long now_s = (long long)time(NULL);
    subscription(body, sizeof body, "sub_c", now_s);
    CHECK_RC(ledger_ingest_stripe(NULL, store, body, strlen(body), (now_s - 60) * 1000, NULL), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_webhook_deliveries(&json, store, id, "pending", 0, 10), GATEKIT_OK);
    CHECK(json && strstr(json, "\"seq\":1,\"eventId\":\"evt_1\"") && strstr(json, "\"state\":\"pending\"") && strstr(json, "\"attempts\":[]"));
    gatekit_free(json);

    /* A worker's pass: the receiver is not there; the attempt is a failure with its error, and
     * the delivery waits for its retry. */
    gatekit_webhook_delivery_options o;
    CHECK_RC(ledger_webhook_delivery_options_init(&o, GATEKIT_WEBHOOK_DELIVERY_OPTIONS_VERSION), GATEKIT_OK);
    CHECK(o.attempt_timeout_ms == 10000 && o.give_up_after_ms == 259200000LL && o.disable_after_ms == 432000000LL);
    o.attempt_timeout_ms = 2000;
    CHECK_RC(ledger_webhook_deliver(&json, store, &o, 2000), GATEKIT_OK);  /* not allowed: loopback refused at connect */
    CHECK(json && strstr(json, "\"attempted\":1") && strstr(json, "\"failed\":1"));
    gatekit_free(json);
    CHECK_RC(ledger_webhook_deliveries(&json, store, id, NULL, 0, 10), GATEKIT_OK);
    CHECK(json && strstr(json, "\"status\":0") && strstr(json, "not a public address"));
    gatekit_free(json);
    CHECK_RC(ledger_webhook_replay(store, id, 0, LLONG_MAX, 0, LLONG_MAX), 1);  /* due again now */
    o.flags = GATEKIT_WEBHOOK_ALLOW_PRIVATE;
    CHECK_RC(ledger_webhook_deliver(&json, store, &o, 2000), GATEKIT_OK);
    CHECK(json && strstr(json, "\"failed\":1"));
    gatekit_free(json);
    CHECK_RC(ledger_webhook_deliveries(&json, store, id, "pending", 0, 10), GATEKIT_OK);
    CHECK(json && strstr(json, "\"status\":0") && strstr(json, "connect"));
    gatekit_free(json);

    /* The report and Prometheus text say so. */
    CHECK_RC(ledger_webhook_report(&json, store), GATEKIT_OK);
    CHECK(json && strstr(json, "\"pending\":1") && strstr(json, "\"attempts\":2") && strstr(json, "\"delivered\":0"));
    gatekit_free(json);
    CHECK_RC(ledger_webhook_metrics(&json, store), GATEKIT_OK);
    char series[160];
    snprintf(series, sizeof series, "gatekit_webhook_pending{endpoint=\"%s\"} 1\n", id);
    CHECK(json && strstr(json, "# TYPE gatekit_webhook_pending gauge") && strstr(json, series));
    gatekit_free(json);

    /* A delivery thread starts and stops; a bad option is refused before any thread starts. */
    gatekit_webhook_delivery *running = NULL;
    CHECK_RC(ledger_webhook_delivery_start(&running, store, &o), GATEKIT_OK);
    usleep(200 * 1000);
    /* A forked child has no such thread: stopping the parent's is an error there, nothing joined. */
    pid_t child = fork();
    if (child == 0) _exit(ledger_webhook_delivery_stop(running) == GATEKIT_EFORKED ? 0 : 1);
    int status = -1;
    CHECK(child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_RC(ledger_webhook_delivery_stop(running), GATEKIT_OK);
    o.give_up_after_ms = 0;
    running = NULL;
    CHECK_RC(ledger_webhook_delivery_start(&running, store, &o), GATEKIT_EINVAL);
    CHECK(running == NULL);

    /* Disabled, an endpoint gets nothing queued. */
    CHECK_RC(ledger_webhook_endpoint_update(&json, store, id, "{\"enabled\":false}", 0), GATEKIT_OK);
    CHECK(json && strstr(json, "\"enabled\":false") && strstr(json, "\"disabledReason\":\"disabled by the host\""));
    gatekit_free(json);
    subscription(body, sizeof body, "sub_d", now_s);
    CHECK_RC(ledger_ingest_stripe(NULL, store, body, strlen(body), (now_s - 30) * 1000, NULL), GATEKIT_LEDGER_NEW);
    CHECK_RC(ledger_webhook_deliveries(&json, store, id, NULL, 1, 10), GATEKIT_OK);
    CHECK(json && strstr(json, "\"deliveries\":[]"));
    gatekit_free(json);

    /* An endpoint failing for disable_after_ms is disabled by the worker, and the feed says so:
     * a notice numbered with the changes, listed apart from them. The retry comes 5 s (±20 %)
     * after the first failure. */
    char second[80];
    CHECK_RC(ledger_webhook_endpoint_add(&json, store, url, NULL, 0, "failing", GATEKIT_WEBHOOK_ALLOW_PRIVATE), GATEKIT_OK);
    endpoint_id(json, second, sizeof second);
    gatekit_free(json);
    subscription(body, sizeof body, "sub_e", now_s);
    CHECK_RC(ledger_ingest_stripe(NULL, store, body, strlen(body), (now_s - 20) * 1000, NULL), GATEKIT_LEDGER_NEW);
    o.give_up_after_ms = 60000;
    o.disable_after_ms = 1000;
    CHECK_RC(ledger_webhook_deliver(&json, store, &o, 2000), GATEKIT_OK);
    CHECK(json && strstr(json, "\"failed\":1") && strstr(json, "\"disabled\":[]"));
    gatekit_free(json);
    usleep(6200 * 1000);
    CHECK_RC(ledger_webhook_deliver(&json, store, &o, 2000), GATEKIT_OK);
    char disabled[120];
    snprintf(disabled, sizeof disabled, "\"disabled\":[\"%s\"]", second);
    CHECK(json && strstr(json, disabled));
    gatekit_free(json);
    CHECK_RC(ledger_changes(&json, store, 0, 100), GATEKIT_OK);
    char notice[200];
    snprintf(notice, sizeof notice, "\"kind\":\"webhook_endpoint_disabled\",\"endpointId\":\"%s\"", second);
    CHECK(json && strstr(json, "\"notices\":[{\"seq\":4,") && strstr(json, notice) && strstr(json, "every delivery failed for 1 s")
          && strstr(json, "\"last\":4}"));
    gatekit_free(json);
    CHECK_RC(ledger_wait_changes(store, 4, 0), 0);

    gatekit_store_close(store);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_ledger_webhooks");
}
