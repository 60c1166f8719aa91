/* A store handle belongs to the process that opened it: in a child made by fork(2) every call
 * on the inherited handle fails with GATEKIT_EFORKED and closing it touches nothing, while
 * the parent keeps using it; a store the child opens itself works. Both backends. */
#include "check.h"

#include <sys/wait.h>

static char folder[] = "/tmp/gatekit-fork-XXXXXX";
static char path[128];
static gatekit_store *inherited;
static const char hash[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

static int child(void) {
    CHECK_RC(eula_should_present_hash(inherited, "terms", hash, NULL), GATEKIT_EFORKED);
    CHECK(strstr(gatekit_last_error(), "forked") != NULL);
    CHECK_RC(eula_accept(inherited, "terms", hash, "child"), GATEKIT_EFORKED);
    CHECK_RC(perm_state(inherited, 5100), GATEKIT_EFORKED);
    gatekit_store_close(inherited);  /* leaves the parent's connection alone */
    gatekit_store *own = NULL;
    CHECK_RC(check_store_open(&own, path), GATEKIT_OK);
    CHECK_RC(eula_should_present_hash(own, "terms", hash, NULL), 0);  /* the parent's acceptance */
    CHECK_RC(eula_accept(own, "terms", hash, "child"), GATEKIT_OK);
    gatekit_store_close(own);
    return check_failed;
}

int main(int argc, char **argv) {
    (void)argc;
    check_disable_swift_backtracer(argv);
    if (!mkdtemp(folder)) { perror("mkdtemp"); return 2; }
    snprintf(path, sizeof path, "%s/store.sqlite", folder);
    CHECK_RC(check_store_open(&inherited, path), GATEKIT_OK);
    CHECK_RC(eula_accept(inherited, "terms", hash, NULL), GATEKIT_OK);
    CHECK_RC(check_in_child(0, child), 0);
    /* The parent's handle and connection survived the child's attempts and its close. */
    CHECK_RC(eula_should_present_hash(inherited, "terms", hash, "child"), 0);
    CHECK_RC(eula_accept(inherited, "terms", hash, "parent"), GATEKIT_OK);
    gatekit_store_close(inherited);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", folder);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_report("test_fork");
}
