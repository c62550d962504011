"""A build holds py3langid's model (~70 MB resident) only while it reads documents: the derive
after it is where the build's memory peaks, and the model is not needed there."""
from __future__ import annotations

from pathlib import Path

import pytest

from kb.build import publish
from kb.build.inputs import path_inputs
from kb.normalise import lang
from site_databases import SNAPSHOT

# A French page whose language is detected from its text (kb.parse.rulings.card_page_capture).
FRENCH_PAGE = SNAPSHOT / "pages" / "fr-conspiracy-rulings.txt"


def test_the_model_is_let_go_before_the_derive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    held_after_reading: list[int] = []
    held_when_deriving: list[int] = []
    read, derive = publish.load_document, publish.link_all

    def reading(*args, **kwargs):  # type: ignore[no-untyped-def]
        fmt = read(*args, **kwargs)
        held_after_reading.append(lang._latin_identifier.cache_info().currsize)
        return fmt

    def deriving(*args, **kwargs):  # type: ignore[no-untyped-def]
        held_when_deriving.append(lang._latin_identifier.cache_info().currsize)
        return derive(*args, **kwargs)

    monkeypatch.setattr(publish, "load_document", reading)
    monkeypatch.setattr(publish, "link_all", deriving)
    monkeypatch.setattr(publish, "RELEASE_LANGUAGE_MODEL", True)  # the suite keeps it (conftest.py)
    lang.release_language_model()
    publish.build_database(path_inputs([FRENCH_PAGE], source_id="page-capture"), tmp_path / "kb.db")
    assert (held_after_reading, held_when_deriving) == ([1], [0])


def test_a_build_outside_the_suite_lets_the_model_go() -> None:
    """The suite keeps the model between builds (tests/conftest.py); a build anywhere else does not."""
    import subprocess
    import sys

    code = "from kb.build import publish; print(publish.RELEASE_LANGUAGE_MODEL)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "True"


def test_a_text_after_the_release_loads_the_model_again() -> None:
    assert lang.detect_lang("Si une créature avec le conspirer est copiée, la copie a aussi le conspirer.")[0] == "fr"
    lang.release_language_model()
    assert lang._latin_identifier.cache_info().currsize == 0
    assert lang.detect_lang("Wenn eine Kreatur mit Komplott kopiert wird, hat die Kopie auch Komplott.")[0] == "de"
