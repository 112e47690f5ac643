"""Simulated worlds, and the one switch between them and the real sources.

- :mod:`~mmlu_audit.worlds.simulated` — the simulated leaderboard (:class:`WorldSpec`,
  :func:`simulate_world`, :func:`load_or_simulate`): real items, simulated models and responses
  with planted effects
- :mod:`~mmlu_audit.worlds.homogeneity` — small clustered worlds for the size and power of the
  homogeneity tests
- :mod:`~mmlu_audit.worlds.sources` — :func:`load_responses` for every source name, real ones
  (registered in :mod:`mmlu_audit.data.registry`) or simulated
"""
