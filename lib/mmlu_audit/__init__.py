"""mmlu_audit — the helper package behind the MMLU psychometric audit book.

Public API (everything else is internal):

- data: :func:`load_items`, :func:`load_redux`, :func:`load_responses`,
  :class:`ResponseMatrix`
- taxonomy: :data:`STEM_SUBJECTS`, :func:`partition_of`, :func:`is_stem`
- errors: :class:`DataError`
"""

from .data import ResponseMatrix, load_items, load_redux
from .errors import DataError, MissingDependencyError
from .paths import cache_root, data_root, project_root
from .taxonomy import PARTITIONS, STEM_SUBJECTS, SUBJECTS, is_stem, partition_of

__version__ = "0.1.0"

__all__ = [
    "DataError",
    "MissingDependencyError",
    "PARTITIONS",
    "ResponseMatrix",
    "STEM_SUBJECTS",
    "SUBJECTS",
    "cache_root",
    "data_root",
    "is_stem",
    "load_items",
    "load_redux",
    "partition_of",
    "project_root",
]
