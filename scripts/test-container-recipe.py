#!/usr/bin/env python3
"""examples/Containerfile built and started as written, without a container engine (the CI
machine runs none): its FROM is Debian's own release of that name debootstrapped (minbase, as
-slim is), COPY copies from the repository, each RUN runs in a chroot with the environment the
recipe set, and its CMD starts as `podman run` would, as its USER, in a network namespace of
its own; then the endpoints must answer /health and the delivery worker beside them must be
running. An instruction this script does not know fails it, so the recipe cannot outgrow the
test. Needs root (debootstrap, chroot, unshare) and Debian's mirror; `make test` runs it after
the packages are built (dist/).

    scripts/test-container-recipe.py [--base DIR [--base-only]] [REPOSITORY]

--base DIR keeps the debootstrapped base in DIR, made there when missing (`make container-base`
runs --base-only beside the fuzz smoke while the packages are built).
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

MIRROR = os.environ.get("GATEKIT_DEBIAN_MIRROR", "http://deb.debian.org/debian")
# What a container engine gives every image's processes unless the recipe says otherwise.
ENGINE_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}


def instructions(recipe: Path) -> List[Tuple[str, str]]:
    """The recipe's instructions (keyword, argument), continuation lines joined, comments dropped."""
    out: List[Tuple[str, str]] = []
    pending = ""
    for line in recipe.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, argument = (pending + line).strip().partition(" ")
        out.append((keyword.upper(), argument.strip()))
        pending = ""
    return out


def run(command: List[str], **options: Any) -> None:
    print("+ " + " ".join(shlex.quote(c) for c in command)[:300], flush=True)
    subprocess.run(command, check=True, **options)


def base(image: str, root: Path, kept: Optional[Path]) -> None:
    """FROM debian:<release>[-slim]: that release from Debian's mirror (a copy of `kept`'s when
    it holds that release)."""
    name, _, tag = image.partition(":")
    release = tag.removesuffix("-slim")
    if name != "debian" or not release:
        sys.exit(f"test-container-recipe: FROM {image}: only a debian:<release> base is built here")
    if kept is not None:
        made = kept / release
        if not (made / "etc" / "os-release").exists():
            shutil.rmtree(made, ignore_errors=True)
            run(["debootstrap", "--variant=minbase", release, str(made) + ".part", MIRROR], stdout=subprocess.DEVNULL)
            os.rename(str(made) + ".part", made)
        if root == made:
            return
        run(["cp", "-a", str(made), str(root)])
    else:
        run(["debootstrap", "--variant=minbase", release, str(root), MIRROR], stdout=subprocess.DEVNULL)
    shutil.copy("/etc/resolv.conf", root / "etc" / "resolv.conf")  # as an engine does
    # The host's own certificate authorities (an egress proxy's, as on the CI machine), as an
    # engine behind such a proxy is given them: the recipe's ca-certificates adds them.
    local = Path("/usr/local/share/ca-certificates")
    for authority in sorted(local.glob("*.crt")) if local.is_dir() else []:
        (root / "usr/local/share/ca-certificates").mkdir(parents=True, exist_ok=True)
        shutil.copy(authority, root / "usr/local/share/ca-certificates" / authority.name)


def copy(argument: str, context: Path, root: Path) -> None:
    source, destination = argument.split()
    target = root / destination.lstrip("/")
    if (context / source).is_dir():
        shutil.copytree(context / source, target, dirs_exist_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(context / source, target)


def environment(argument: str, env: Dict[str, str]) -> None:
    """ENV NAME=VALUE …"""
    for pair in shlex.split(argument):
        name, _, value = pair.partition("=")
        env[name] = value


def health(pid: int, port: int, deadline: float) -> Dict[str, Any]:
    """GET /health inside the namespace of process `pid`, once it answers."""
    ask = ["nsenter", f"--net=/proc/{pid}/ns/net", "curl", "-sf", "--max-time", "5", f"http://127.0.0.1:{port}/health"]
    while True:
        done = subprocess.run(ask, capture_output=True, text=True)
        if done.returncode == 0:
            answer: Dict[str, Any] = json.loads(done.stdout)
            return answer
        if time.monotonic() > deadline:
            sys.exit(f"test-container-recipe: /health did not answer (curl exit {done.returncode})")
        time.sleep(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description="examples/Containerfile built and started as written, without an engine")
    parser.add_argument("--base", type=Path, help="keep the debootstrapped base here (made when missing)")
    parser.add_argument("--base-only", action="store_true", help="make the base in --base, nothing else")
    parser.add_argument("repository", nargs="?", type=Path, default=Path(__file__).resolve().parent.parent)
    options = parser.parse_args()
    kept = options.base.resolve() if options.base else None
    repository = options.repository
    recipe = repository / "examples" / "Containerfile"
    if os.geteuid() != 0:
        sys.exit("test-container-recipe: debootstrap and chroot need root; CI runs as root")
    if options.base_only:
        if kept is None:
            sys.exit("test-container-recipe: --base-only needs --base DIR")
        kept.mkdir(parents=True, exist_ok=True)
        image = next(argument for keyword, argument in instructions(recipe) if keyword == "FROM")
        base(image, kept / image.partition(":")[2].removesuffix("-slim"), kept)
        print(f"container base: {image} in {kept}")
        return 0
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="gatekit-container."))
    root = work / "root"
    env = dict(ENGINE_ENV)
    user = "root"
    command: List[str] = []
    port = 0
    server = None
    try:
        for keyword, argument in instructions(recipe):
            if keyword == "FROM":
                base(argument, root, kept)
            elif keyword == "COPY":
                copy(argument, repository, root)
            elif keyword == "RUN":
                run(["chroot", f"--userspec={user}", str(root), "/bin/sh", "-c", argument], env=env, stdout=subprocess.DEVNULL)
            elif keyword == "ENV":
                environment(argument, env)
            elif keyword == "USER":
                user = argument
            elif keyword == "EXPOSE":
                port = int(argument)
            elif keyword == "CMD":
                command = json.loads(argument)
            else:
                sys.exit(f"test-container-recipe: {recipe}: {keyword} is not an instruction this test knows")
        built = time.monotonic()
        # `podman run -p 8080:8080 gatekit-endpoints`: the CMD, as USER, in a network of its own.
        home = next(line.split(":")[5] for line in (root / "etc/passwd").read_text().splitlines() if line.startswith(user + ":"))
        run_env = {**env, "HOME": home}
        port = int(run_env.get("PORT", port))
        if not command or not port:
            sys.exit(f"test-container-recipe: {recipe} has no CMD, or no PORT nor EXPOSE to ask /health on")
        server = subprocess.Popen(["unshare", "--net", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                                   "chroot", f"--userspec={user}:{user}", str(root), *command], env=run_env, start_new_session=True)
        answer = health(server.pid, port, time.monotonic() + 60)
        print(f"/health: {json.dumps(answer)[:200]}")
        if answer.get("status") != "ok" or answer.get("webhooks") != []:
            sys.exit("test-container-recipe: /health does not say the store answers")
        time.sleep(1)  # a worker that cannot start exits at once: give it the time to
        workers = subprocess.run(["pgrep", "-f", "-s", str(server.pid), "ledger deliver --follow"], capture_output=True, text=True)
        if workers.returncode != 0:
            sys.exit("test-container-recipe: the delivery worker beside the endpoints is not running")
        if not (root / env["GATEKIT_STORE"].lstrip("/")).exists():
            sys.exit(f"test-container-recipe: no store at {env['GATEKIT_STORE']} in the image")
        print(f"container recipe: built in {built - started:.0f} s, started and answered in {time.monotonic() - built:.0f} s")
        print("container: 1 passed, 0 failed")
        return 0
    finally:
        if server is not None:
            try:
                os.killpg(server.pid, 15)
            except ProcessLookupError:
                pass
            server.wait(timeout=30)
        subprocess.run(["rm", "-rf", "--one-file-system", str(work)])


if __name__ == "__main__":
    sys.exit(main())
