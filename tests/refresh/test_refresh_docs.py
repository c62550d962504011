"""docs/refresh.md stays runnable: its cron line, systemd units and workflow parse and name the command."""
from __future__ import annotations

import configparser
import re
from pathlib import Path

import yaml

DOC = Path(__file__).parent.parent.parent / "docs" / "refresh.md"
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for info, body in FENCE.findall(DOC.read_text(encoding="utf-8")):
        found.setdefault(info.strip(), []).append(body)
    return found


def test_the_cron_line_has_five_fields_and_runs_the_refresh() -> None:
    [cron] = blocks()["cron"]
    [line] = [l for l in cron.splitlines() if l.strip() and not l.startswith("#")]
    fields = line.split(None, 5)
    assert len(fields) == 6
    minute, hour, day, month, weekday, command = fields
    assert re.fullmatch(r"[0-9*/,-]+", minute) and re.fullmatch(r"[0-9*/,-]+", hour)
    assert (day, month, weekday) == ("*", "*", "*")
    assert "mtgkb refresh" in command


def test_the_systemd_units_parse_and_name_the_refresh() -> None:
    found = blocks()
    service = configparser.ConfigParser(strict=True, interpolation=None)
    service.read_string(found["ini mtgkb-refresh.service"][0])
    assert service["Service"]["Type"] == "oneshot"
    assert "mtgkb refresh" in service["Service"]["ExecStart"]
    assert service["Service"]["SuccessExitStatus"] == "2"
    # A oneshot unit has no start timeout of its own: a run that never ends stopped the timer
    # (an operator's review).
    assert service["Service"]["TimeoutStartSec"]
    timer = configparser.ConfigParser(strict=True, interpolation=None)
    timer.read_string(found["ini mtgkb-refresh.timer"][0])
    assert timer["Timer"]["OnCalendar"]
    assert timer["Install"]["WantedBy"] == "timers.target"


def test_the_workflow_is_scheduled_refreshes_smoke_checks_then_publishes() -> None:
    [workflow_text] = blocks()["yaml"]
    workflow = yaml.safe_load(workflow_text)
    # PyYAML reads the bare key `on` as True (YAML 1.1).
    triggers = workflow.get("on", workflow.get(True))
    assert triggers["schedule"][0]["cron"].count(" ") == 4
    steps = workflow["jobs"]["refresh"]["steps"]
    runs = [step.get("run", "") for step in steps]
    uses = [step.get("uses", "") for step in steps]
    refresh_at = next(i for i, r in enumerate(runs) if "mtgkb refresh" in r)
    smoke_at = next(i for i, r in enumerate(runs) if re.search(r"datasette \S+ --get", r))
    publish_at = next(i for i, r in enumerate(runs) if "datasette publish" in r)
    restore_at = next(i for i, u in enumerate(uses) if "cache/restore" in u)
    assert restore_at < refresh_at < smoke_at < publish_at
    assert "data/raw" in steps[restore_at]["with"]["path"] and "data/kb.db" in steps[restore_at]["with"]["path"]


def test_the_readme_section_documents_every_exit_code() -> None:
    """The README's Refreshing section (docs/refresh.md kept a draft of it, since removed) names
    each exit code the job has and links to this document."""
    readme = (DOC.parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Refreshing", 1)[1].split("\n## ", 1)[0]
    for code in ("**0**", "**1**", "**2**"):
        assert code in section
    assert "[docs/refresh.md](docs/refresh.md)" in section
