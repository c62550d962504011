"""Runs ``mtgkb`` commands for the hostile catalogue: forks a child per command from one process
that has already imported ``kb.cli`` and every command's modules, and reports exit code, peak RSS and time of each child.

Forking skips the second of imports each run would cost, so the whole catalogue stays fast;
``os.wait4`` gives the child's own peak RSS (``ru_maxrss``, which includes the ~100 MB this
process holds after its imports, as a real ``mtgkb`` run does). An address-space limit keeps a
regression from taking the machine's memory: it then fails with MemoryError, not by swapping.

Protocol: one JSON request per line on stdin ({"args", "cwd", "stdout", "stderr", "timeout",
"env", "address_space"}), one JSON answer per line on stdout ({"code", "maxrss_mb", "seconds",
"timed_out"}).
"""
from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time
import traceback

import click

import kb.build.publish  # noqa: F401 - what `mtgkb build` and `mtgkb import` import when they run
import kb.cli
from kb.parse.formats import all_formats

all_formats()  # the parser registry too
# Every command's module, imported once before any fork (the group imports them when run).
with click.Context(kb.cli.cli) as context:
    for name in kb.cli.cli.list_commands(context):
        kb.cli.cli.get_command(context, name)


def _child(request: dict) -> None:
    os.setsid()
    os.chdir(request["cwd"])
    os.environ.update(request.get("env") or {})
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    os.dup2(err, 2)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
    limit = int(request.get("address_space") or 0)
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    code = 1
    try:
        kb.cli.cli.main(args=request["args"], prog_name="mtgkb")
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    except BaseException:  # as Python itself would: a traceback and exit 1
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _run(request: dict) -> dict:
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            _child(request)
        finally:
            os._exit(70)
    deadline = started + float(request.get("timeout", 60))
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline and not timed_out:
            timed_out = True
            os.killpg(pid, signal.SIGKILL)
        time.sleep(0.005)
    return {
        "code": os.waitstatus_to_exitcode(status),
        "maxrss_mb": usage.ru_maxrss / 1024,
        "seconds": time.monotonic() - started,
        "timed_out": timed_out,
    }


def main() -> None:
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(_run(json.loads(line))), flush=True)


if __name__ == "__main__":
    main()
