"""Flattens fixtures/expected/receipts.json for test_receipt.c: one tab-separated line per receipt."""
import json
import sys
from datetime import datetime

facts = json.load(open(sys.argv[1] + "/expected/receipts.json"))["receipts"]
for name, f in facts.items():
    created = datetime.strptime(f["creation_date"], "%Y-%m-%dT%H:%M:%S%z")
    first = f["in_app"][0] if f["in_app"] else {}
    print("\t".join([
        name, f["file"], f["environment"], f["bundle_id"], f["app_version"] or "-",
        str(int(created.timestamp()) * 1000), str(f["in_app_count"]),
        first.get("1702") or "-", first.get("1703") or "-",
        f.get("device_id_hex") or "-", "1" if f.get("device_hash_matches") else "0", f["digest"],
    ]))
