"""The folders show the flow: each stage imports only the stages before it (as its package
docstring says), ``scraper`` never imports ``kb``, and the README's Layout tree matches the files."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from collected_files import COLLECTED

ROOT = Path(__file__).parent.parent

# What each folder of kb/ may import, as its __init__ docstring says (plus itself).
ALLOWED: dict[str, set[str]] = {
    "records": set(),
    "checksums": set(),
    "normalise": {"records"},
    "parse": {"records", "normalise"},
    "link": {"records", "normalise"},
    "store": {"records", "normalise", "link", "checksums"},
    "build": {"records", "normalise", "parse", "link", "store", "checksums"},
    "refresh": {"records", "normalise", "parse", "link", "store", "build", "checksums", "scraper"},
    "site": {"records", "normalise", "link", "store", "checksums"},
    "cli": {"records", "normalise", "parse", "link", "store", "build", "refresh", "site", "checksums", "scraper"},
}


def imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
        elif isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
    return modules


def stage_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "scraper":
        return "scraper"
    if parts[0] == "kb" and len(parts) > 1:
        return parts[1]
    return None


def test_each_stage_imports_only_what_its_docstring_allows() -> None:
    wrong = []
    for path in sorted((ROOT / "kb").rglob("*.py")):
        relative = path.relative_to(ROOT / "kb")
        stage = relative.parts[0].removesuffix(".py")
        if stage == "__init__":
            continue
        for module in imported_modules(path):
            target = stage_of(module)
            if target and target != stage and target not in ALLOWED[stage]:
                wrong.append(f"kb/{relative} imports {module}")
    assert wrong == []


def test_scraper_never_imports_kb() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "scraper").rglob("*.py"))
        for module in imported_modules(path)
        if module == "kb" or module.startswith("kb.")
    ]
    assert wrong == []


def test_every_module_and_folder_says_its_job_in_a_docstring() -> None:
    missing = [
        str(path.relative_to(ROOT))
        for folder in ("kb", "scraper")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert missing == []


def layout_tree() -> str:
    """The README's Layout block: every package folder with its docstring's first line, then its modules.

    Regenerate it with ``python tests/test_layout.py`` after adding, moving or renaming a module.
    """
    lines = []
    for folder in ("scraper", "kb"):
        for package in sorted(p.parent for p in (ROOT / folder).rglob("__init__.py")):
            relative = package.relative_to(ROOT)
            depth = len(relative.parts) - 1
            doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""
            lines.append(f"{'  ' * depth}{relative.name}/  {doc.splitlines()[0] if doc else ''}".rstrip())
            modules = sorted(p.name for p in package.glob("*.py") if p.name != "__init__.py")
            if modules:
                lines.append(f"{'  ' * (depth + 1)}{' '.join(modules)}")
    return "\n".join(lines)


def test_the_readme_layout_matches_the_folders() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Layout", 1)[1]
    block = section.split("```text\n", 1)[1].split("\n```", 1)[0]
    assert block == layout_tree(), "README Layout is out of date: run python tests/test_layout.py"


if __name__ == "__main__":
    print(layout_tree())


def test_every_test_file_is_collected(request: pytest.FixtureRequest) -> None:
    """A test file pytest never collects passes in every run: pytest skips folders named
    ``build`` by default, and tests/build/ went unrun until ``norecursedirs`` said otherwise."""
    if whole_suite(request.config):
        # This run collected the whole folder as pytest would: what it collected is the answer.
        collected = set(COLLECTED)
    else:
        collected = collected_by_pytest()
    on_disk = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "tests").rglob("test_*.py")
        if "fixtures" not in path.parts
    }
    assert on_disk - collected == set()
    assert "tests/build/test_incremental.py" in collected


def whole_suite(config: pytest.Config) -> bool:
    """Whether this run collected everything: no paths named (the configured tests folder) or
    the tests folder itself, from the project's root."""
    named = [Path(arg.split("::")[0]) for arg in config.args]
    return config.rootpath == ROOT and all((ROOT / path).resolve() == ROOT / "tests" for path in named)


def collected_by_pytest() -> set[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    return {line.split("::")[0] for line in listed.splitlines() if "::" in line}



def test_the_long_proofs_make_test_leaves_out_are_run_by_ci_and_bench() -> None:
    """`make test` deselects the tests marked ``long_proof``; they must still run somewhere: CI
    runs `make proofs` after `make test`, and `make bench` runs them first."""
    makefile = (ROOT / "Makefile").read_text()
    assert "PYTEST_MARKS ?= not long_proof" in makefile
    assert "test PYTEST_MARKS=long_proof" in makefile  # `make proofs`
    ci_steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert ci_steps.index("make test") < ci_steps.index("make proofs")
    assert '"-m", "long_proof"' in (ROOT / "bench" / "run_all.py").read_text()
    marked = [
        path.name for path in (ROOT / "tests").rglob("test_*.py")
        if "fixtures" not in path.parts and "\n@pytest.mark.long_proof\n" in path.read_text()
    ]
    # The README counts them ("Twenty-three modules hold long proofs"): a new one is said there too.
    assert len(marked) == 23, marked
