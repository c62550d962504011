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
    """The arguments of every ``name`` instruction, continuation lines joined as Docker joins them."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    return [line.split(None, 1)[1] for line in text.splitlines() if line.startswith(name + " ")]


def database_stage_script() -> str:
    (script,) = [line for line in dockerfile_instructions("RUN") if "mtgkb build" in line]
    return script


def test_the_images_build_step_uses_options_mtgkb_build_has() -> None:
    words = shlex.split(database_stage_script().replace(";", " ; "))
    build_args = words[words.index("build", words.index("mtgkb")) + 1:words.index(";", words.index("mtgkb"))]
    assert "--snapshot" in build_args and "--db" in build_args
    help_text = CliRunner().invoke(cli, ["build", "--help"]).output
    for option in (arg for arg in build_args if arg.startswith("--")):
        assert option in help_text, option


def run_database_stage(tmp_path: Path, kb_db: str) -> subprocess.CompletedProcess[str]:
    """The image's database step as /bin/sh runs it in the build, with ``mtgkb`` a stand-in that
    records its arguments into the file it was asked to build."""
    stub = tmp_path / "bin" / "mtgkb"
    stub.parent.mkdir()
    stub.write_text('#!/bin/sh\nfor a; do last=$a; done\necho "$@" > "$last"\n', encoding="utf-8")
    stub.chmod(0o755)
    (tmp_path / "data" / "snapshot").mkdir(parents=True)
    env = {"PATH": f"{stub.parent}:/usr/bin:/bin", "KB_DB": kb_db}
    return subprocess.run(["sh", "-c", database_stage_script()], cwd=tmp_path, env=env, capture_output=True, text=True)


def test_the_image_builds_its_database_from_the_snapshot_by_default(tmp_path: Path) -> None:
    result = run_database_stage(tmp_path, "")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "kb.db").read_text().split()[:5] == ["build", "--quiet", "--snapshot", "data/snapshot", "--db"]


def test_the_image_ships_a_database_given_as_a_build_arg(tmp_path: Path) -> None:
    # `docker build --build-arg KB_DB=data/kb.db .` (docs/deploy.md): a refreshed file is served as it is.
    assert "KB_DB=" in dockerfile_instructions("ARG")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "kb.db").write_bytes(b"refreshed")
    result = run_database_stage(tmp_path, "data/kb.db")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "kb.db").read_bytes() == b"refreshed"
    assert "--build-arg KB_DB=data/kb.db" in (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")


def test_a_database_build_arg_naming_no_file_stops_the_image_build(tmp_path: Path) -> None:
    result = run_database_stage(tmp_path, "data/other.db")
    assert result.returncode == 1
    assert "KB_DB=data/other.db" in result.stderr and not (tmp_path / "kb.db").exists()


def docker_context_excludes(path: str) -> bool:
    """Whether .dockerignore keeps ``path`` out of the build context: the last pattern matching the
    path or one of its folders decides, ``!`` sends it, ``**`` spans folders (Docker's rules)."""
    from fnmatch import fnmatchcase

    def matches(pattern: list[str], parts: list[str]) -> bool:
        if not pattern:
            return not parts
        if pattern[0] == "**":
            return any(matches(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
        return bool(parts) and fnmatchcase(parts[0], pattern[0]) and matches(pattern[1:], parts[1:])

    excluded = False
    parts = path.split("/")
    for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        sends = line.startswith("!")
        pattern = line.lstrip("!").strip("/").split("/")
        if any(matches(pattern, parts[:n]) for n in range(1, len(parts) + 1)):
            excluded = not sends
    return excluded


def test_the_build_context_holds_what_the_image_copies() -> None:
    sources = [arg for line in dockerfile_instructions("COPY") if not line.startswith("--from")
               for arg in line.split()[:-1]]
    assert "data" in sources
    for source in sources:
        assert not docker_context_excludes(source), source
    for sent in ("data/snapshot/cr/en/2022-04-29.txt", "data/kb.db", "kb/site/plugin.py"):
        assert not docker_context_excludes(sent), sent
    for left_out in ("data/raw/manifest.sqlite", "data/other.db", "data/kb.inspect.json",
                     "kb/__pycache__/records.cpython-311.pyc", ".venv/bin/python", "tests/test_docs.py"):
        assert docker_context_excludes(left_out), left_out


@pytest.mark.long_proof
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


@pytest.mark.long_proof
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


def test_mtgkb_publish_runs_the_datasette_beside_its_interpreter_when_path_lacks_it(tmp_path: Path) -> None:
    # `.venv/bin/mtgkb publish heroku` with .venv not activated: the datasette of .venv/bin runs
    # (it says the Heroku CLI is missing here), not "Error: No such file or directory".
    (tmp_path / "kb.db").write_bytes(b"")
    result = subprocess.run(
        [str(BIN / "mtgkb"), "publish", "heroku", "--db", "kb.db"],
        cwd=tmp_path, env={"PATH": str(tmp_path), "HOME": str(tmp_path)}, capture_output=True, text=True, timeout=120,
    )
    assert "No such file or directory" not in result.stderr
    assert "Publishing to Heroku requires heroku" in result.stdout + result.stderr


def test_mtgkb_publish_without_datasette_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    def must_not_run(*args: object) -> None:
        raise AssertionError(f"ran {args}")

    monkeypatch.setattr(os, "execv", must_not_run)
    monkeypatch.setattr(os, "execvp", must_not_run)
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "env" / "bin").mkdir(parents=True)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "env" / "bin" / "python"))
    (tmp_path / "kb.db").write_bytes(b"")
    result = CliRunner().invoke(cli, ["publish", "cloudrun", "--db", str(tmp_path / "kb.db")])
    assert result.exit_code == 1
    (line,) = result.output.splitlines()
    assert line.startswith("Error: datasette not found: not on PATH, nor in ")
    assert str(tmp_path / "env" / "bin") in line


def test_the_deploy_docs_show_what_mtgkb_publish_dry_run_prints() -> None:
    lines = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("mtgkb publish cloudrun --dry-run") + 1
    shown_lines = []
    for line in lines[start:]:
        if not line.startswith("# "):
            break
        shown_lines.append(line[2:].rstrip("\\").strip())
    documented = shlex.split(" ".join(shown_lines))
    assert documented == ["datasette", *publish_args("cloudrun", Path("data/kb.db"))]
