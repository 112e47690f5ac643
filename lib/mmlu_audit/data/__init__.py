"""Data layer: items, MMLU-Redux annotations and response matrices from three sources."""

from .checksums import sha256_of, verify_file
from .items import ITEM_COLUMNS, load_items, load_redux, validate_items
from .helm import load_helm20
from .responses import MISSING, ResponseMatrix, load_matrix, save_matrix
from .sources import SOURCES, load_responses

__all__ = [
    "ITEM_COLUMNS",
    "MISSING",
    "ResponseMatrix",
    "SOURCES",
    "load_helm20",
    "load_responses",
    "load_items",
    "load_matrix",
    "load_redux",
    "save_matrix",
    "sha256_of",
    "validate_items",
    "verify_file",
]
