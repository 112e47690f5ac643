"""Command line: ``python -m mmlu_audit audit ITEMS --out DIR [--responses MATRIX [--partition COLUMN]]``.

Exit status: 0 on success, 2 with one line naming the problem (bad data, a bad option, an
output folder that cannot be used), 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mmlu_audit.core.errors import cli_status


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
    audit.add_argument("--k", type=int, default=10, help="consensus panel size (default 10; at "
                       "least 3, at most the number of models)")
    audit.add_argument("--m", type=int, default=6, help="consensus vote threshold (default 6; "
                       "1 ≤ m ≤ k)")
    audit.add_argument("--seed", type=int, default=0, help="seed of the IRT fit, 0 … 2**32 - 1 "
                       "(default 0)")
    audit.add_argument("--max-steps", type=int, help="cap on the 2PL fit's SVI steps")
    audit.add_argument("--partition", metavar="COLUMN", help="a column of ITEMS with two levels (e.g. "
                       "STEM / non-STEM): adds the joint homogeneity test W(9), clustered by subject, "
                       "on the fitted difficulties (needs --responses)")
    audit.add_argument("--n-boot", type=int, help="wild cluster bootstrap draws of the homogeneity "
                       "test (default: §4.3's, mmlu_audit.audit.HOMOGENEITY_DRAWS)")
    audit.add_argument("--no-progress", action="store_true", help="hide progress bars")
    args = parser.parse_args(argv)

    def body() -> int:
        from mmlu_audit.audit import run_audit

        out = run_audit(args.items, args.out, args.responses, k=args.k, m=args.m, seed=args.seed,
                        progress=not args.no_progress, max_steps=args.max_steps,
                        partition=args.partition,
                        **({"n_boot": args.n_boot} if args.n_boot is not None else {}))
        print(f"audit written to {out}/items.csv and {out}/audit.json")
        return 0

    return cli_status("audit", body)


if __name__ == "__main__":
    sys.exit(main())
