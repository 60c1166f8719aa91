/* hello_eula: the smallest complete GateKit host — a launch gate for a EULA.
 *
 *   cc -o hello_eula examples/hello_eula.c $(pkg-config --cflags --libs gatekit)
 *   ./hello_eula EULA.txt            # exit 3: must be shown; 0: accepted
 *   ./hello_eula EULA.txt --accept   # records acceptance of the text it read
 */
#include <gatekit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, int rc) {
    fprintf(stderr, "%s: %s (%s)\n", what, gatekit_strerror(rc), gatekit_last_error());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s EULA-FILE [--accept]\n", argv[0]);
        return 2;
    }
    /* NULL path: $GATEKIT_STORE, else ~/.local/state/gatekit/com.example.app.sqlite */
    gatekit_store *store = NULL;
    int rc = gatekit_store_open(&store, NULL, "com.example.app");
    if (rc < 0) return fail("gatekit_store_open", rc);

    /* Hash the text once: what we show is exactly what the user accepts. */
    char hash[GATEKIT_HASH_HEX_SIZE];
    rc = eula_hash_file(hash, argv[1]);
    if (rc < 0) { gatekit_store_close(store); return fail(argv[1], rc); }

    rc = eula_should_present_hash(store, "terms", hash, NULL /* the default user */);
    if (rc < 0) { gatekit_store_close(store); return fail("eula_should_present_hash", rc); }
    if (rc == 0) {
        printf("terms %.12s… already accepted\n", hash);
    } else if (argc > 2 && strcmp(argv[2], "--accept") == 0) {
        rc = eula_accept(store, "terms", hash, NULL);
        if (rc < 0) { gatekit_store_close(store); return fail("eula_accept", rc); }
        printf("terms %.12s… accepted\n", hash);
    } else {
        printf("terms %.12s… must be presented\n", hash);
        gatekit_store_close(store);
        return 3;
    }
    gatekit_store_close(store);
    return 0;
}
