"""Command lines that publish the built database with Datasette elsewhere (Cloud Run, Heroku, a
Docker image), with this package installed so the plugin serves the whole site there too.

The database is immutable once built, so a deployment scales by running more identical stateless
replicas of one image behind a load balancer; see docs/deploy.md.
"""
from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

from kb.site.serve import setting_args

# What a deployment installs: this project from its repository at a tag (override with --install,
# e.g. a wheel URL or a private index name).
DEFAULT_INSTALL = "mtg-rules-kb @ git+https://github.com/mtg-rules-kb/mtg-rules-kb"
TARGETS = ("cloudrun", "heroku", "package")


def publish_args(target: str, db_path: Path, install: str = DEFAULT_INSTALL, name: str = "mtg-rules-kb") -> list[str]:
    """``datasette publish <target> …`` (or ``datasette package …``) arguments, without the program name."""
    if target not in TARGETS:
        raise ValueError(f"unknown publish target {target!r}; choose one of {', '.join(TARGETS)}")
    command = ["package", "--tag", name] if target == "package" else ["publish", target]
    if target == "cloudrun":
        command += ["--service", name]
    elif target == "heroku":
        command += ["--name", name]
    # -i serves the file immutable (no locking, counts from inspect); the settings are the ones
    # `mtgkb serve` uses, so every replica answers like the local site.
    return [*command, str(db_path), "--install", install, "--extra-options", extra_options()]


def extra_options() -> str:
    return shlex.join(setting_args())


def datasette_program() -> str:
    """The ``datasette`` program a publish runs: the one on PATH, else the one beside the running
    interpreter (its environment's scripts: ``.venv/bin/mtgkb`` runs with ``.venv`` not activated,
    so ``.venv/bin`` is not on PATH). FileNotFoundError, saying where it looked, when neither."""
    found = shutil.which("datasette")
    if found:
        return found
    # Not resolved: a venv's python links to the base interpreter, whose folder is not the venv's.
    beside = Path(sys.executable).parent
    found = shutil.which("datasette", path=str(beside))
    if found:
        return found
    raise FileNotFoundError(
        f"datasette not found: not on PATH, nor in {beside} (beside {sys.executable}); "
        f"install it with `{sys.executable} -m pip install datasette`"
    )
