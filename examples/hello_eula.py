"""hello_eula.py: the Python twin of hello_eula.c — a launch gate for a EULA.

    python3 examples/hello_eula.py EULA.txt            # exit 3: must be shown; 0: accepted
    python3 examples/hello_eula.py EULA.txt --accept   # records acceptance of the text it read
"""
import sys

import gatekit


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(f"usage: {argv[0]} EULA-FILE [--accept]", file=sys.stderr)
        return 2
    # Hash the text once: what we show is exactly what the user accepts.
    shown = gatekit.hash_file(argv[1])
    try:
        with gatekit.Store(app_id="com.example.app") as store:
            if not store.eula.should_present_hash("terms", shown):
                print(f"terms {shown[:12]}… already accepted")
            elif argv[2:] == ["--accept"]:
                store.eula.accept("terms", shown)
                print(f"terms {shown[:12]}… accepted")
            else:
                print(f"terms {shown[:12]}… must be presented")
                return 3
    except gatekit.GateKitError as error:
        print(f"gatekit: {error.detail} (code {error.code})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
