"""The history commands' --limit: a count, never negative."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kb.cli.history import citations_to_check, cr_diff


def test_a_negative_limit_is_a_usage_error(snapshot_db: Path) -> None:
    """cr-diff --limit -1 listed every change but the last (a slice), citations-to-check every
    citation (SQL's limit -1): a newcomer's review."""
    for command, args in [(cr_diff, ["en-2015-03-27", "en-2015-07-17"]), (citations_to_check, [])]:
        result = CliRunner().invoke(command, [*args, "--db", str(snapshot_db), "--limit", "-1"])
        assert result.exit_code == 2 and "-1 is not in the range x>=0" in result.output, result.output
