"""``make data``: mirror the staged data, parse the stems (MMLU, MMLU-Pro), embed the items, make the worlds.

Usage::

    python -m mmlu_audit.book.prepare [--source ../shared/data] [--seed 20240601]

Each staged file is copied to a temporary name, checked against its published
sha256, and only then renamed into place; files already present with the right
checksum are left alone. This is the only step that reads from outside the
project; chapters read ``data/`` (or the resolved data root) only.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from functools import partial
from pathlib import Path

from mmlu_audit.core.seeds import seeded
from mmlu_audit.data.checksums import staged_manifest, verify_file
from mmlu_audit.core.errors import DataError
from mmlu_audit.core.paths import project_root
from mmlu_audit.core.store import atomic_write

__all__ = ["mirror_staged_data", "prepare_embeddings", "prepare_features", "prepare_pro_features",
           "prepare_worlds", "main"]

#: Staged folders whose provenance README is mirrored beside the data.
_README_FOLDERS = ("responses/helm_mmlu_top20_via_mmlu_redux", "responses/mmlu_pro_tiger29",
                   "responses/mmlu_pro_tiger_extra5", "responses/openllm_v1_metabench_mmlu102",
                   "leaderboard", "mmlu_pro/revisions",
                   "helm_mmlu_subjects", "responses/routerdc7_lmeval_mmlu", "responses/routellm2_mmlu")


def mirror_staged_data(source: Path, target: Path) -> list[str]:
    """Copy every staged file listed in the manifest from ``source`` to ``target``.

    Returns
    -------
    list of str
        The relative paths that were copied (already-verified files are skipped).
    """
    copied = []
    for relative, digest in staged_manifest().items():
        destination = target / relative
        if destination.exists():
            try:
                verify_file(destination, digest)
                continue
            except DataError:
                pass  # stale or corrupt copy: replace it below
        origin = verify_file(source / relative, digest)
        destination.parent.mkdir(parents=True, exist_ok=True)
        _copy_verified(origin, destination, digest)
        copied.append(relative)
    for folder in _README_FOLDERS:
        readme = source / folder / "README.md"
        if readme.exists():
            shutil.copyfile(readme, target / folder / "README.md")
    return copied


def _copy_verified(origin: Path, destination: Path, digest: str) -> None:
    """Copy ``origin`` over ``destination`` only once the copy has matched ``digest``."""
    atomic_write(destination, lambda partial: verify_file(shutil.copyfile(origin, partial), digest))


def prepare_features(items=None, n_process: int | None = None, cache_dir: Path | None = None) -> None:
    """Parse the MMLU stems and cache their feature table, with one spaCy worker per core.

    The simulated worlds and the chapters read this table. Built here, the parse (~90 s in one
    process on 2 cores, once the longest step of ``make data``) runs in parallel workers; each stem
    is parsed the same way in any worker, so the table and its cache key are those of a
    one-process parse (tested).

    Parameters
    ----------
    items : DataFrame, optional
        Defaults to the MMLU test split (:func:`~mmlu_audit.data.items.load_items`).
    n_process : int, optional
        spaCy worker processes; defaults to :func:`~mmlu_audit.core.machine.available_cores`.
    cache_dir : Path, optional
        Cache root (default :func:`~mmlu_audit.core.paths.cache_root`).
    """
    from mmlu_audit.data.items import load_items
    from mmlu_audit.features import build_feature_table

    items = load_items() if items is None else items
    build_feature_table(items, backend=_parallel_parser(n_process), cache_dir=cache_dir)


def _parallel_parser(n_process: int | None):
    """The spaCy backend with ``n_process`` workers (default: one per available core)."""
    from mmlu_audit.core.machine import available_cores
    from mmlu_audit.features.parse import SpacyBackend

    return SpacyBackend(n_process=n_process or available_cores())


def prepare_pro_features(items=None, n_process: int | None = None, cache_dir: Path | None = None) -> None:
    """Parse the MMLU-Pro stems and cache their feature table, with one spaCy worker per core.

    The MMLU-Pro chapter reads this table. Parsed there, in one process, its ~5,100 stems that
    MMLU does not share took ~45 s of the chapter's ~55 s first cell on 2 cores.

    Parameters
    ----------
    items : DataFrame, optional
        Defaults to MMLU-Pro's questions (:func:`~mmlu_audit.data.mmlu_pro.load_pro_items`).
    n_process, cache_dir
        As for :func:`prepare_features`.
    """
    from mmlu_audit.data.mmlu_pro import load_pro_items
    from mmlu_audit.features import benchmark_features

    items = load_pro_items() if items is None else items
    benchmark_features(items, backend=_parallel_parser(n_process), cache_dir=cache_dir)


def prepare_embeddings(items=None, cache_dir: Path | None = None) -> None:
    """Embed every MMLU item with the sentence encoder and cache the vectors.

    Only §4.1's encoder ceiling reads them. Computed there, the encoder (~2 min on 2 cores) was
    most of that chapter's time and, at ~8.7–13 ms an item from one build to the next, the
    reason it could pass 3 min; here it is data preparation, like the parse, and the chapter
    reads the cache (and computes the vectors itself if they are missing).

    Parameters
    ----------
    items : DataFrame, optional
        Defaults to the MMLU test split (:func:`~mmlu_audit.data.items.load_items`).
    cache_dir : Path, optional
        Embedding cache folder (default that of :func:`~mmlu_audit.features.encode_items`).
    """
    from mmlu_audit.data.items import load_items
    from mmlu_audit.features import encode_items

    items = load_items() if items is None else items
    encode_items(items, cache_dir=cache_dir, progress=True)


@seeded
def prepare_worlds(seed: int) -> None:
    """Generate and cache the planted and null simulated worlds for ``seed``."""
    from mmlu_audit.worlds.sources import load_responses

    for source in ("simulated", "simulated-null"):
        matrix = load_responses(source, seed=seed)
        print(f"  {source}: {matrix.shape[0]:,} × {matrix.shape[1]:,} cached", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=project_root().parent / "shared" / "data")
    parser.add_argument("--target", type=Path, default=project_root() / "data")
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args(argv)
    try:
        copied = mirror_staged_data(args.source, args.target)
    except DataError as exc:
        print(f"make data: {exc}", file=sys.stderr)
        return 1
    print(f"staged data in {args.target}: {len(copied)} file(s) copied, "
          f"{len(staged_manifest()) - len(copied)} already verified")
    steps = {"MMLU parse": prepare_features, "MMLU-Pro parse": prepare_pro_features,
             "sentence encoder": prepare_embeddings, "simulated worlds": partial(prepare_worlds, args.seed)}
    for name, step in steps.items():
        start = time.perf_counter()
        step()
        # bench/bench_cold_build.py reads these lines
        print(f"make data: {name} took {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
