"""Command line: ``python -m mmlu_audit audit ITEMS --out DIR [--responses MATRIX]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mmlu_audit.core.errors import DataError


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m mmlu_audit")
    commands = parser.add_subparsers(dest="command", required=True)
    audit = commands.add_parser(
        "audit", help="complexity indicators and capacity indices of a multiple-choice benchmark",
        description="Write the nine complexity indicators, the retrieval- and reasoning-capacity "
                    "indices and (with --responses) IRT difficulty and consensus flags per item.")
    audit.add_argument("items", type=Path, help="benchmark file (.jsonl, .csv or .parquet)")
    audit.add_argument("--out", type=Path, required=True, help="output folder (new, empty or a "
                       "previous audit output)")
    audit.add_argument("--responses", type=Path, help="long table of model answers: model, id, choice")
    audit.add_argument("--k", type=int, default=10, help="consensus panel size (default 10)")
    audit.add_argument("--m", type=int, default=6, help="consensus vote threshold (default 6)")
    audit.add_argument("--seed", type=int, default=0, help="seed of the IRT fit (default 0)")
    audit.add_argument("--no-progress", action="store_true", help="hide progress bars")
    args = parser.parse_args(argv)
    from mmlu_audit.audit import run_audit

    try:
        out = run_audit(args.items, args.out, args.responses, k=args.k, m=args.m, seed=args.seed,
                        progress=not args.no_progress)
    except DataError as exc:
        print(f"audit: {exc}", file=sys.stderr)
        return 2
    print(f"audit written to {out}/items.csv and {out}/audit.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
