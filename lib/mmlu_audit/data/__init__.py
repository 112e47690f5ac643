"""Data layer: items, MMLU-Redux annotations and the real response sources.

Nothing here imports the simulator, the feature pipeline, IRT or regression; simulated
sources are dispatched above this layer, by :func:`mmlu_audit.worlds.sources.load_responses`.
"""

from mmlu_audit.data.checksums import verify_file
from mmlu_audit.data.items import ITEM_COLUMNS, load_items, load_redux, validate_items
from mmlu_audit.data.helm import load_helm20, load_helm_subjects
from mmlu_audit.data.mmlu_pro import load_crosswalk, load_pro_items, load_pro_panel, load_pro_responses
from mmlu_audit.data.responses import MISSING, ResponseMatrix, load_matrix, save_matrix
from mmlu_audit.data.registry import REAL_SOURCES, RealSource, load_real_responses, register_source

_LEADERBOARD = ("build_leaderboard_matrix", "download_leaderboard", "load_leaderboard",
                "parse_details_file")


def __getattr__(name):
    # Imported lazily so `python -m mmlu_audit.data.leaderboard` runs without a double import.
    if name in _LEADERBOARD:
        from mmlu_audit.data import leaderboard

        return getattr(leaderboard, name)
    raise AttributeError(name)


__all__ = [
    "build_leaderboard_matrix",
    "download_leaderboard",
    "load_leaderboard",
    "parse_details_file",
    "ITEM_COLUMNS",
    "MISSING",
    "ResponseMatrix",
    "REAL_SOURCES",
    "RealSource",
    "load_helm20",
    "load_crosswalk",
    "load_pro_items",
    "load_pro_panel",
    "load_pro_responses",
    "load_helm_subjects",
    "load_real_responses",
    "load_items",
    "load_matrix",
    "load_redux",
    "register_source",
    "save_matrix",
    "validate_items",
    "verify_file",
]
