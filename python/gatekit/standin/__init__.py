"""Local stand-ins of the stores' servers, to try GateKit and test a host offline: each listens
on 127.0.0.1 with a certificate from its own throw-away CA and checks every request as the store
would. ``python -m gatekit.standin.play DIR`` serves Google's side of Google Play (the OAuth token
endpoint, the push key set, the Play Developer API) and writes its settings into DIR/env;
``python -m gatekit.standin.stripe DIR`` serves Stripe's API (a test-mode key, the v1 paths the
ledger reads, signed webhook deliveries on request).

They need the ``cryptography`` package (``pip install 'libgatekit[standin]'``) for their own
CA and keys; GateKit itself verifies everything with OpenSSL."""
