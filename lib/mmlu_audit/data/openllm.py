"""The Open LLM Leaderboard v1 as staged from metabench: 4,278 models × 102 MMLU items, and
the leaderboard's six-benchmark aggregates of 6,986 models.

Provenance and caveats are in ``responses/openllm_v1_metabench_mmlu102/README.md`` and
``leaderboard/README.md`` of the data root. Two of them matter wherever these files are used:

- the 102 items were **selected** by metabench for their information about the full-MMLU
  score, on these same responses; they are not a sample of MMLU;
- 1,155 of the 4,278 rows repeat an earlier row's 102 responses exactly.

The item table carries metabench's ``mirt`` 3PL fit (a reference, not ground truth: its EM
stopped at 1,000 cycles unconverged) in mirt's slope–intercept form and converted,
a = a1, b = −d / a1, c = plogis(g_logit).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError
from mmlu_audit.core.paths import data_root
from mmlu_audit.data.checksums import staged_manifest, verify_file
from mmlu_audit.data.responses import ResponseMatrix
from mmlu_audit.data.tables import require_columns, require_unique

__all__ = ["OPENLLM_DIR", "AGGREGATES_FILE", "BENCHMARK_COLUMNS", "load_openllm_mmlu102",
           "load_openllm_items", "load_openllm_aggregates", "validate_openllm_items",
           "validate_aggregates"]

OPENLLM_DIR = "responses/openllm_v1_metabench_mmlu102"
AGGREGATES_FILE = "leaderboard/openllm_v1_aggregates.csv"
#: The six Open LLM Leaderboard v1 benchmarks, as columns of the aggregates table.
BENCHMARK_COLUMNS = ("arc", "hellaswag", "mmlu", "truthfulqa", "winogrande", "gsm8k")
_MODEL_COLUMNS = ("model_idx", "model_id", "mean_102", "lb_mmlu", "metabench_mmlu_score", "theta",
                  "theta_se", "merged", "moe", "precision", "nparams", "arch", "size")
_ITEM_COLUMNS = ("item_idx", "item_id", "subject", "row_index", "is_stem", "mmlu_answer",
                 "p_correct", "a1", "d", "g_logit", "a", "b", "c")
_AGGREGATE_COLUMNS = ("name", "complete", "avg", *BENCHMARK_COLUMNS, "moe", "precision",
                      "nparams", "arch", "size")
_DESCRIPTION = (
    "Real Open LLM Leaderboard v1 responses (lm-eval-harness 5-shot, per-item acc) of 4,278 models "
    "on 102 MMLU items that metabench SELECTED for information about the full score, not sampled; "
    "1,155 rows repeat an earlier row exactly.")


def _staged(root: Path, relative: str) -> Path:
    return verify_file(root / relative, staged_manifest()[relative])


def validate_openllm_items(items: pd.DataFrame, source: str | Path = "items.csv") -> None:
    """Check the 102-item table: columns, unique ids, and the documented mirt conversion.

    Raises
    ------
    DataError
        On a missing column, a repeated ``item_id`` or ``item_idx`` other than 0…I−1 in
        order, or ``a``, ``b``, ``c`` that are not a1, −d/a1 and plogis(g_logit).
    """
    require_columns(items, _ITEM_COLUMNS, source)
    require_unique(items, "item_id", source)
    if not np.array_equal(items["item_idx"].to_numpy(), np.arange(len(items))):
        raise DataError(source, "item_idx is not 0, 1, …, I−1 in file order")
    a1, d, g = (items[k].to_numpy(float) for k in ("a1", "d", "g_logit"))
    expected = {"a": a1, "b": -d / a1, "c": 1.0 / (1.0 + np.exp(-g))}
    for column, values in expected.items():
        off = ~np.isclose(items[column].to_numpy(float), values, rtol=1e-6, atol=1e-9)
        if off.any():
            first = items.loc[off, "item_id"].iloc[0]
            raise DataError(source, f"{int(off.sum())} item(s) whose {column} is not the documented "
                            f"conversion of mirt's a1, d, g_logit, e.g. {first!r}")


def load_openllm_items(root: str | Path | None = None) -> pd.DataFrame:
    """The 102 selected MMLU items with metabench's mirt 3PL parameters, in column order of ``Y``.

    Parameters
    ----------
    root : str or Path, optional
        Data root; defaults to :func:`mmlu_audit.core.paths.data_root`.

    Returns
    -------
    DataFrame
        ``items.csv`` as staged (``a``, ``b``, ``c`` the usual 3PL form of mirt's fit).
    """
    root = Path(root) if root is not None else data_root()
    path = _staged(root, f"{OPENLLM_DIR}/items.csv")
    items = pd.read_csv(path)
    validate_openllm_items(items, path)
    return items


def load_openllm_mmlu102(root: str | Path | None = None) -> ResponseMatrix:
    """The 4,278 × 102 Open LLM Leaderboard v1 matrix with the model table as metadata.

    Parameters
    ----------
    root : str or Path, optional
        Data root.

    Returns
    -------
    ResponseMatrix
        Columns in metabench's item order (``load_openllm_items``); ``models`` is
        ``models.csv`` (leaderboard MMLU score ``lb_mmlu``, metabench's θ, merged / MoE /
        precision / size metadata). No cell is missing.

    Raises
    ------
    DataError
        If a file is missing or altered, an array is absent, the model or item order of the
        tables differs from the archive, or ``mean_102`` is not the row mean of ``Y``
        (a table that belongs to other responses).
    """
    root = Path(root) if root is not None else data_root()
    npz_path = _staged(root, f"{OPENLLM_DIR}/responses.npz")
    csv_path = _staged(root, f"{OPENLLM_DIR}/models.csv")
    try:
        with np.load(npz_path, allow_pickle=False) as npz:
            y, item_ids, model_ids = (npz[k] for k in ("Y", "item_ids", "model_ids"))
    except (KeyError, ValueError, OSError) as exc:
        raise DataError(npz_path, f"not the expected npz archive ({exc})") from exc
    models = pd.read_csv(csv_path)
    require_columns(models, _MODEL_COLUMNS, csv_path)
    models["model_id"] = pd.read_csv(csv_path, usecols=["model_id"], dtype=str,
                                     keep_default_na=False)["model_id"]
    if list(models["model_id"]) != [str(m) for m in model_ids]:
        raise DataError(csv_path, "model order differs from responses.npz")
    items = load_openllm_items(root)
    if list(items["item_id"]) != [str(i) for i in item_ids]:
        raise DataError(npz_path, "item order differs from items.csv")
    if y.ndim != 2 or not np.allclose(y.mean(axis=1), models["mean_102"], atol=1e-5):
        raise DataError(csv_path, "mean_102 is not the row mean of Y; the table belongs to other responses")
    return ResponseMatrix(y.astype(np.int8), models, item_ids.astype(str), "openllm_v1_mmlu102",
                          False, _DESCRIPTION)


def validate_aggregates(table: pd.DataFrame, source: str | Path = "aggregates") -> None:
    """Check the aggregates table: columns, unique names, scores within 0–100.

    Raises
    ------
    DataError
        On a missing column, a repeated or empty ``name``, or a score outside [0, 100].
    """
    require_columns(table, _AGGREGATE_COLUMNS, source)
    require_unique(table, "name", source)
    if (table["name"].astype(str).str.strip() == "").any():
        raise DataError(source, "a model row has an empty name")
    for column in (*BENCHMARK_COLUMNS, "avg"):
        values = pd.to_numeric(table[column], errors="coerce")
        bad = ~(values.isna() | values.between(0, 100))
        bad |= values.isna() & table[column].notna() & (table[column].astype(str) != "")
        if bad.any():
            first = table.loc[bad, "name"].iloc[0]
            raise DataError(source, f"{int(bad.sum())} {column} value(s) not a score in 0–100, "
                            f"e.g. model {first!r}")


def load_openllm_aggregates(root: str | Path | None = None) -> pd.DataFrame:
    """The Open LLM Leaderboard v1 aggregates of 6,986 models (metabench's scrape).

    Two encodings of the file are undone, as its README documents them: a TruthfulQA score
    of 0.0 is a NaN of the source and becomes missing, and ``size`` −1 (unknown) becomes
    missing. ``merged``, ``flagged`` and ``available`` are loader defaults with no
    information and are not returned.

    Returns
    -------
    DataFrame
        ``name`` (text, verbatim), ``complete``, ``avg``, the six benchmark scores (0–100,
        NaN where absent), ``moe``, ``precision``, ``nparams``, ``arch``, ``size`` (billions).
    """
    root = Path(root) if root is not None else data_root()
    path = _staged(root, AGGREGATES_FILE)
    table = pd.read_csv(path)
    validate_aggregates(table, path)
    table["name"] = pd.read_csv(path, usecols=["name"], dtype=str, keep_default_na=False)["name"]
    table["truthfulqa"] = table["truthfulqa"].mask(table["truthfulqa"].eq(0.0))
    table["size"] = table["size"].mask(table["size"].lt(0))
    return table[list(_AGGREGATE_COLUMNS)].reset_index(drop=True)
