/* transaction_lookup.c: ask the App Store Server API about a transaction, as a server does
 * before it grants what was bought.
 *
 *   cc transaction_lookup.c $(pkg-config --cflags --libs gatekit) -o transaction_lookup
 *   ./transaction_lookup KEY.p8 KEY_ID ISSUER_ID BUNDLE_ID ENVIRONMENT TRANSACTION_ID [BASE_URL CA_FILE TEST_ROOT]
 *
 * ENVIRONMENT: Production or Sandbox (Production also needs the app's Apple id in a real
 * server). BASE_URL, CA_FILE and TEST_ROOT point it at a stand-in instead of Apple's servers.
 * Exit 0: the transaction, its signature verified, is printed; 1: Apple answered with an
 * error (printed as JSON); 2: usage; 3: anything else (the reason on stderr). */
#include <gatekit.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *data = malloc(1 << 20);
    *len = data ? fread(data, 1, 1 << 20, f) : 0;
    fclose(f);
    return data;
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 10) {
        fprintf(stderr, "usage: %s KEY.p8 KEY_ID ISSUER_ID BUNDLE_ID ENVIRONMENT TRANSACTION_ID [BASE_URL CA_FILE TEST_ROOT]\n", argv[0]);
        return 2;
    }
    size_t pem_len = 0, root_len = 0;
    unsigned char *pem = slurp(argv[1], &pem_len), *root = argc == 10 ? slurp(argv[9], &root_len) : NULL;
    gatekit_appstore_key *key = NULL;
    if (!pem || appstore_key_load(&key, pem, pem_len, argv[2], argv[3], argv[4]) != 0) {
        fprintf(stderr, "the key: %s\n", gatekit_last_error());
        return 3;
    }
    gatekit_jws_options verify = GATEKIT_JWS_OPTIONS_INIT;   /* how the answer's signed members are checked */
    verify.bundle_id = argv[4];
    verify.environment = argv[5];
    verify.test_anchor_der = root;        /* NULL: Apple's root, pinned in the library */
    verify.test_anchor_len = root_len;
    gatekit_appstore_client_options o = GATEKIT_APPSTORE_CLIENT_OPTIONS_INIT;
    o.environment = argv[5];
    o.base_url = argc == 10 ? argv[7] : NULL;   /* NULL: Apple's servers */
    o.ca_file = argc == 10 ? argv[8] : NULL;
    o.verify = &verify;
    gatekit_appstore_client *client = NULL;
    int status = 3;
    if (appstore_client_new(&client, key, &o) == 0) {
        char *body = NULL, *decoded = NULL;
        int rc = appstore_get_transaction_info(&body, &decoded, client, argv[6]);
        if (rc == 0) {
            puts(decoded);                                  /* signed members verified and decoded */
            status = 0;
        } else if (rc == GATEKIT_EAPPSTORE_API) {
            puts(body);                                     /* {"httpStatus":404,"errorCode":4040010,...} */
            status = 1;
        } else {
            fprintf(stderr, "%s\n", gatekit_last_error());  /* no answer, or one that did not verify */
        }
        gatekit_free(body);
        gatekit_free(decoded);
        appstore_client_free(client);
    } else {
        fprintf(stderr, "%s\n", gatekit_last_error());
    }
    appstore_key_free(key);
    free(pem);
    free(root);
    return status;
}
