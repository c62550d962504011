"""The ``mtgkb`` group imports a command's modules only when that command runs."""
from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from kb.cli import LAZY_COMMANDS, cli

HEAVY = ["scraper.fetch", "kb.build.publish", "kb.refresh.job", "kb.link.cr_diff", "kb.site.plugin", "bs4"]


def loaded_after(code: str) -> dict[str, bool]:
    """Which of HEAVY a fresh interpreter holds after running ``code`` (this one has them all)."""
    probe = f"import sys, json\n{code}\nprint(json.dumps({{name: name in sys.modules for name in {HEAVY!r}}}))"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(found.stdout.splitlines()[-1])


def loaded_after_help(command: str) -> dict[str, bool]:
    return loaded_after(f"from kb.cli import cli\ntry:\n    cli.main([{command!r}, '--help'])\nexcept SystemExit:\n    pass")


def test_the_group_and_serve_help_load_no_stage() -> None:
    nothing = dict.fromkeys(HEAVY, False)
    assert loaded_after("import kb.cli") == nothing
    assert loaded_after_help("serve") == nothing


def test_a_command_loads_its_own_modules_only() -> None:
    loaded = loaded_after_help("rule-at")
    assert loaded["kb.link.cr_diff"]
    assert not loaded["scraper.fetch"] and not loaded["kb.refresh.job"] and not loaded["kb.site.plugin"]


def test_every_lazy_command_is_listed_and_runs_its_help() -> None:
    listing = CliRunner().invoke(cli, ["--help"], standalone_mode=False).output
    for name in LAZY_COMMANDS:
        assert f"  {name} " in listing, name
        result = CliRunner().invoke(cli, [name, "--help"], standalone_mode=False)
        assert result.exit_code == 0, (name, result.output)
        assert f"Usage: cli {name}" in result.output, result.output
