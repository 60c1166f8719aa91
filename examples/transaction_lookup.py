"""Ask the App Store Server API about a transaction, under Apple's names (transaction_lookup.c
in Python):

    python3 transaction_lookup.py KEY.p8 KEY_ID ISSUER_ID BUNDLE_ID ENVIRONMENT TRANSACTION_ID [BASE_URL CA_FILE TEST_ROOT]

Exit 0: the answer, its signed members verified and decoded, is printed; 1: Apple answered with an error; 2: usage."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from gatekit.apple import APIException, AppStoreServerAPIClient
from gatekit.jws import SignedDataVerifier


def main(argv: list[str]) -> int:
    if len(argv) not in (7, 10):
        print(__doc__, file=sys.stderr)
        return 2
    key, key_id, issuer_id, bundle_id, environment, transaction_id = argv[1:7]
    base_url, ca_file, test_root = argv[7:10] if len(argv) == 10 else (None, None, None)
    verifier = SignedDataVerifier(bundle_id, environment, test_anchor=Path(test_root).read_bytes() if test_root else None)
    with AppStoreServerAPIClient(Path(key).read_bytes(), key_id, issuer_id, bundle_id, environment,
                                 verifier=verifier, base_url=base_url, ca_file=ca_file) as client:
        try:
            response = client.get_transaction_info(transaction_id)
        except APIException as e:
            print(json.dumps({"httpStatus": e.http_status_code, "errorCode": e.raw_api_error, "errorMessage": e.error_message}))
            return 1
    assert response.decoded is not None  # a verifier was given: every signed member is verified
    print(json.dumps(response.decoded))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
