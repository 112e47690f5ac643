"""The official MMLU subject taxonomy and the STEM / non-STEM partition.

The partition is lm-evaluation-harness's ``mmlu_stem`` group: the 18 STEM
subjects of Hendrycks et al.'s ``categories.py`` plus ``anatomy``. On the
14,042 test items it gives 19 subjects / 3,153 items (STEM) and 38 / 10,889
(non-STEM), the counts the paper reports.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import DataError

__all__ = [
    "SUBJECT_GROUP",
    "SUBJECTS",
    "STEM_SUBJECTS",
    "PARTITIONS",
    "is_stem",
    "partition_of",
    "check_subjects",
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
