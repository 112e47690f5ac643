"""The official MMLU subject taxonomy and the STEM / non-STEM partition.

The partition is lm-evaluation-harness's ``mmlu_stem`` group: the 18 STEM
subjects of Hendrycks et al.'s ``categories.py`` plus ``anatomy``. On the
14,042 test items it gives 19 subjects / 3,153 items (STEM) and 38 / 10,889
(non-STEM), the counts the paper reports.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mmlu_audit.core.errors import DataError

__all__ = [
    "SUBJECT_GROUP",
    "SUBJECTS",
    "STEM_SUBJECTS",
    "PARTITIONS",
    "is_stem",
    "partition_of",
    "check_subjects",
    "PRO_CATEGORY_PARTITION",
    "PRO_CATEGORIES",
    "pro_partition_of",
    "mmlu_subject_partition",
]

# lm-evaluation-harness MMLU groups (stem, humanities, social_sciences, other).
SUBJECT_GROUP: dict[str, str] = {
    **dict.fromkeys(
        "abstract_algebra anatomy astronomy college_biology college_chemistry "
        "college_computer_science college_mathematics college_physics computer_security "
        "conceptual_physics electrical_engineering elementary_mathematics high_school_biology "
        "high_school_chemistry high_school_computer_science high_school_mathematics "
        "high_school_physics high_school_statistics machine_learning".split(),
        "stem",
    ),
    **dict.fromkeys(
        "formal_logic high_school_european_history high_school_us_history "
        "high_school_world_history international_law jurisprudence logical_fallacies "
        "moral_disputes moral_scenarios philosophy prehistory professional_law "
        "world_religions".split(),
        "humanities",
    ),
    **dict.fromkeys(
        "econometrics high_school_geography high_school_government_and_politics "
        "high_school_macroeconomics high_school_microeconomics high_school_psychology "
        "human_sexuality professional_psychology public_relations security_studies sociology "
        "us_foreign_policy".split(),
        "social_sciences",
    ),
    **dict.fromkeys(
        "business_ethics clinical_knowledge college_medicine global_facts human_aging "
        "management marketing medical_genetics miscellaneous nutrition "
        "professional_accounting professional_medicine virology".split(),
        "other",
    ),
}
SUBJECTS: tuple[str, ...] = tuple(sorted(SUBJECT_GROUP))
STEM_SUBJECTS: frozenset[str] = frozenset(s for s, g in SUBJECT_GROUP.items() if g == "stem")
PARTITIONS: tuple[str, str] = ("STEM", "non-STEM")


def check_subjects(subjects, source: str = "subjects") -> None:
    """Raise :class:`DataError` if any subject is not one of the 57 MMLU subjects."""
    values = pd.unique(np.asarray(subjects, dtype=object))
    missing = [v for v in values if not isinstance(v, str) and pd.isna(v)]
    if missing:
        raise DataError(source, "missing subject label(s) (NaN/None); "
                        "every item needs one of the 57 subjects")
    unknown = sorted(set(values) - set(SUBJECTS), key=repr)
    if unknown:
        shown = ", ".join(map(repr, unknown[:5]))
        raise DataError(source, f"{len(unknown)} unknown subject(s): {shown}")


def is_stem(subjects) -> np.ndarray:
    """Boolean array: True where the subject is in the STEM partition.

    Raises
    ------
    DataError
        If a subject is not an MMLU subject.
    """
    subjects = np.asarray(subjects, dtype=object)
    check_subjects(subjects)
    return np.isin(subjects, list(STEM_SUBJECTS))


def partition_of(subjects) -> np.ndarray:
    """Array of ``"STEM"`` / ``"non-STEM"`` labels for the given subjects."""
    return np.where(is_stem(subjects), PARTITIONS[0], PARTITIONS[1])


# MMLU-Pro (Wang et al., 2024) merges MMLU's 57 subjects into 14 categories and adds
# questions from STEM websites, TheoremQA and SciBench. The partition below keeps MMLU's
# line: a category is STEM when the MMLU subjects it absorbed are STEM subjects above.
# - biology, chemistry, computer science, math, physics: every MMLU-derived item comes from
#   a STEM subject (college/high-school sciences, elementary/abstract maths, machine learning,
#   computer security), and the added sources are science and engineering problem sets.
# - engineering: MMLU's electrical_engineering plus STEM-website engineering problems.
# - health: non-STEM. 739 of its 818 items come from MMLU's "other" medical subjects
#   (clinical_knowledge, college_medicine, nutrition, virology …); only the 79 anatomy items
#   are STEM in MMLU. `mmlu_subject_partition` keeps the item-level MMLU label for a
#   sensitivity check.
# - business, economics, psychology: social sciences / "other" in MMLU, even where MMLU-Pro
#   added STEM-website problems (accounting, economics, psychology exercises).
# - history, law, philosophy, other: humanities and "other".
PRO_CATEGORY_PARTITION: dict[str, str] = {
    **dict.fromkeys(("biology", "chemistry", "computer science", "engineering", "math",
                     "physics"), "STEM"),
    **dict.fromkeys(("business", "economics", "health", "history", "law", "other",
                     "philosophy", "psychology"), "non-STEM"),
}
PRO_CATEGORIES: tuple[str, ...] = tuple(sorted(PRO_CATEGORY_PARTITION))


def pro_partition_of(categories) -> np.ndarray:
    """``"STEM"`` / ``"non-STEM"`` for MMLU-Pro categories (see :data:`PRO_CATEGORY_PARTITION`).

    Raises
    ------
    DataError
        If a category is not one of MMLU-Pro's 14.
    """
    categories = np.asarray(categories, dtype=object)
    unknown = sorted(set(pd.unique(categories)) - set(PRO_CATEGORIES))
    if unknown:
        raise DataError("categories", f"{len(unknown)} unknown MMLU-Pro categor(ies): "
                        + ", ".join(map(repr, unknown[:5])))
    return np.array([PRO_CATEGORY_PARTITION[c] for c in categories], dtype=object)


def mmlu_subject_partition(src) -> np.ndarray:
    """MMLU's own partition of an MMLU-Pro item's original subject, or ``""`` if not from MMLU.

    ``src`` is MMLU-Pro's origin field, e.g. ``"ori_mmlu-anatomy"`` → ``"STEM"``,
    ``"stemez-Physics"`` → ``""``.
    """
    src = pd.Series(np.asarray(src, dtype=object)).astype(str)
    from_mmlu = src.str.startswith("ori_mmlu-")
    out = np.full(len(src), "", dtype=object)
    if from_mmlu.any():
        out[from_mmlu.to_numpy()] = partition_of(src[from_mmlu].str[len("ori_mmlu-"):].to_numpy())
    return out
