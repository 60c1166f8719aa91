/* receipt_check.c: a launch check as a macOS-style app would run it.
 *
 *   cc receipt_check.c $(pkg-config --cflags --libs gatekit) -o receipt_check
 *   ./receipt_check RECEIPT BUNDLE_ID [PRODUCT_ID]
 *
 * Exit 0: the receipt is a genuine App Store receipt for BUNDLE_ID (and PRODUCT_ID is owned
 * now); 173: refused — Apple's convention telling the system to fetch a fresh receipt;
 * 1: valid receipt, but the product is not owned. */
#include <gatekit.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s RECEIPT BUNDLE_ID [PRODUCT_ID]\n", argv[0]);
        return 2;
    }
    gatekit_receipt_options options;
    if (receipt_options_init(&options, GATEKIT_RECEIPT_OPTIONS_VERSION) != 0) {   /* a library older than this header */
        fprintf(stderr, "%s\n", gatekit_last_error());
        return 1;
    }
    options.bundle_id = argv[2];
    /* A real app also sets options.device_id / device_id_len (en0 MAC address on macOS,
     * identifierForVendor bytes on iOS) so a receipt copied from another machine is refused. */
    gatekit_receipt *receipt = NULL;
    int rc = receipt_validate_file(&receipt, argv[1], &options);
    if (rc != 0) {
        fprintf(stderr, "receipt refused: %s (%s), Apple status %d\n", gatekit_strerror(rc), gatekit_last_error(),
                receipt_apple_status(rc));
        return 173;
    }
    printf("valid %s receipt for %s, %d purchase(s)\n", receipt_string(receipt, GATEKIT_RECEIPT_ENVIRONMENT),
           receipt_string(receipt, GATEKIT_RECEIPT_BUNDLE_ID), receipt_purchase_count(receipt));
    int status = 0;
    if (argc > 3) {
        long long created = 0;
        /* "now" for a live app; this example asks at the receipt's creation date so it also
         * works on old sample receipts. */
        if (receipt_date_ms(&created, receipt, GATEKIT_RECEIPT_CREATION_DATE) != 1) created = 0;   /* none: now */
        int owned = receipt_is_entitled(receipt, argv[3], created);
        printf("%s: %s\n", argv[3], owned == 1 ? "owned" : "not owned");
        status = owned == 1 ? 0 : 1;
    }
    receipt_free(receipt);
    return status;
}
