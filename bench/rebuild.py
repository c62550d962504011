"""A whole build as a refresh makes it when it replaces a file this code built.

    python -m bench.rebuild --carry-from SERVED --db OUT FILE…

``kb.build.publish.build_database`` of FILE… into OUT with ``carry_from=SERVED``: SERVED's CR
tables are copied when it holds exactly these CR documents (``kb.store.carry_cr``), and its
citations of unchanged rulings (``kb.store.carry_links``). ``mtgkb refresh`` passes the served file
only when the code fingerprint it recorded is this code's; here the caller vouches for it (the
benchmarks build SERVED with this code just before). For ``bench.full_scale.measured``: a fresh
interpreter, its peak memory read from VmHWM. Prints what was carried.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from kb.build.inputs import path_inputs
from kb.build.publish import build_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--carry-from", type=Path, required=True, help="the file this build replaces")
    parser.add_argument("--db", type=Path, required=True, help="the file to build")
    parser.add_argument("--source", default="cr-archive", help="the source id of FILE…")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    report = build_database(path_inputs(args.files, source_id=args.source), args.db, carry_from=args.carry_from)
    print(f"CR documents carried: {report.cr_documents_carried}; rulings' citations carried: {report.links_carried};"
          f" steps: {', '.join(report.derived)}")


if __name__ == "__main__":
    main()
