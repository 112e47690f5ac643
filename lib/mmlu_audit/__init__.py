"""mmlu_audit — the helper package behind the MMLU psychometric audit book.

Public API (everything else is internal):

- data: :func:`load_items`, :func:`load_redux`, :class:`ResponseMatrix`
- sources: :data:`SOURCES`, :func:`load_responses`, :func:`load_world` (real sources
  are registered in :mod:`mmlu_audit.data.registry`)
- simulation: :class:`WorldSpec`, :func:`simulate_world`, :func:`load_or_simulate`
- taxonomy: :data:`STEM_SUBJECTS`, :func:`partition_of`, :func:`is_stem`
- model identity: :func:`distinct_checkpoints`, :func:`family_size_table`
- errors: :class:`DataError` (bad data), :class:`ParameterError` (bad options)
- seeds: :func:`mmlu_audit.core.seeds.check_seed` (the one seed validator)

Subpackages (imported on demand, since they pull in JAX or spaCy):

- :mod:`mmlu_audit.irt` — 2PL / Rasch / 3PL / 2D / interaction IRT by SVI
- :mod:`mmlu_audit.features` — parser backends, lexicon, WSCG, the nine indicators
- :mod:`mmlu_audit.inference` — HC/CR covariances, Wald and HTZ tests, wild cluster
  bootstrap, permutation tests, diagnostics
- :mod:`mmlu_audit.analyses.pipeline` — the cached inputs shared by the analysis chapters
"""

from mmlu_audit.data import ResponseMatrix, load_items, load_redux
from mmlu_audit.core.errors import DataError, MissingDependencyError, ParameterError
from mmlu_audit.core.checkpoints import distinct_checkpoints, family_size_table
from mmlu_audit.core.paths import cache_root, data_root, project_root
from mmlu_audit.worlds.simulated import World, WorldSpec, load_or_simulate, simulate_world
from mmlu_audit.worlds.sources import SOURCES, load_responses, load_world
from mmlu_audit.core.taxonomy import PARTITIONS, STEM_SUBJECTS, SUBJECTS, is_stem, partition_of

__version__ = "0.1.0"

__all__ = [
    "DataError",
    "MissingDependencyError",
    "ParameterError",
    "PARTITIONS",
    "ResponseMatrix",
    "SOURCES",
    "STEM_SUBJECTS",
    "SUBJECTS",
    "cache_root",
    "data_root",
    "distinct_checkpoints",
    "family_size_table",
    "is_stem",
    "load_items",
    "load_or_simulate",
    "load_redux",
    "load_responses",
    "load_world",
    "partition_of",
    "project_root",
    "simulate_world",
    "World",
    "WorldSpec",
]
