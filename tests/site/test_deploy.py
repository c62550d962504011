"""Deployment recipes work as written: the Docker image's entry command serves the site, and the
command lines `mtgkb publish` builds carry options `datasette serve` accepts and install this package."""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from packaging.requirements import Requirement

from kb.cli import cli
from kb.site.publish import TARGETS, publish_args

ROOT = Path(__file__).parent.parent.parent
BIN = Path(sys.executable).parent
from site_databases import free_port, wait_until_serving


def dockerfile_instructions(name: str) -> list[str]:
    lines = (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
    return [line.split(None, 1)[1] for line in lines if line.startswith(name + " ")]


def test_the_images_build_step_uses_options_mtgkb_build_has() -> None:
    (build_line,) = [line for line in dockerfile_instructions("RUN") if "mtgkb build" in line]
    build_args = shlex.split(build_line.split("&&")[0])[2:]
    help_text = CliRunner().invoke(cli, ["build", "--help"]).output
    for option in (arg for arg in build_args if arg.startswith("--")):
        assert option in help_text, option


def test_the_images_entry_command_serves_the_site(snapshot_db: Path, tmp_path: Path) -> None:
    (command,) = dockerfile_instructions("CMD")
    args = json.loads(command)
    assert args[0] == "mtgkb"
    port = free_port()
    # The image's WORKDIR holds kb.db; only the program's location, the address and the port change here.
    args[0] = str(BIN / "mtgkb")
    args[args.index("--host") + 1] = "127.0.0.1"
    args[args.index("--port") + 1] = str(port)
    (tmp_path / "kb.db").symlink_to(snapshot_db)
    server = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base, server)
        assert 'name="q"' in httpx.get(base + "/").text
        assert "Conspire" in httpx.get(base + "/rule/702.78").text
        settings = httpx.get(base + "/-/settings.json").json()
        assert settings["sql_time_limit_ms"] == 1500
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.parametrize("target", TARGETS)
def test_publish_command_installs_this_package(target: str, tmp_path: Path) -> None:
    args = publish_args(target, tmp_path / "kb.db")
    requirement = Requirement(args[args.index("--install") + 1])
    assert requirement.name == "mtg-rules-kb"
    assert str(tmp_path / "kb.db") in args


def test_publish_extra_options_are_accepted_by_datasette_serve(snapshot_db: Path, tmp_path: Path) -> None:
    args = publish_args("cloudrun", snapshot_db)
    extra = shlex.split(args[args.index("--extra-options") + 1])
    # What the published container runs: datasette serve -i <db> <extra options>.
    result = subprocess.run(
        [str(BIN / "datasette"), "serve", "-i", str(snapshot_db), *extra, "--get", "/rule/702.78"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "Conspire" in result.stdout


def test_mtgkb_publish_dry_run_prints_the_command(snapshot_db: Path) -> None:
    result = CliRunner().invoke(cli, ["publish", "package", "--db", str(snapshot_db), "--dry-run"])
    assert result.exit_code == 0, result.output
    printed = shlex.split(result.output)
    assert printed[:4] == ["datasette", "package", "--tag", "mtg-rules-kb"]
    assert printed[printed.index("--install") + 1].startswith("mtg-rules-kb @ ")
