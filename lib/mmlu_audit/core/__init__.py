"""Foundations every layer may use: nothing here imports anything above it.

- :mod:`~mmlu_audit.core.errors` — the error and warning classes (:class:`DataError` for bad
  data, :class:`ParameterError` for bad options)
- :mod:`~mmlu_audit.core.seeds` — the one seed validator and generator factory
- :mod:`~mmlu_audit.core.scaling` — z-scores (the one spelling of "standardise") and the one
  Pearson correlation (:func:`~mmlu_audit.core.scaling.pearson`)
- :mod:`~mmlu_audit.core.paths` — the project, data and cache roots
- :mod:`~mmlu_audit.core.machine` — the cores this process may use
- :mod:`~mmlu_audit.core.taxonomy` — MMLU's subjects and the STEM / non-STEM partition
- :mod:`~mmlu_audit.core.checkpoints` — model identity (distinct checkpoints, family × size)
- :mod:`~mmlu_audit.core.paper` — the numbers the paper reports, the only place they are typed
- :mod:`~mmlu_audit.core.formatting` — plain-text renderings shared by analyses and prose
"""
