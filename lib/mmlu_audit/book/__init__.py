"""The book's machinery: nothing in the analyses depends on it.

- :mod:`~mmlu_audit.book.prepare` — ``make data``: mirror the staged data, parse and embed the items,
  generate the worlds
- :mod:`~mmlu_audit.book.build` — execute chapters with papermill (``python -m mmlu_audit.book.build``)
- :mod:`~mmlu_audit.book.tags` — fold the plumbing cells of executed chapters
- :mod:`~mmlu_audit.book.device` — the ``--device`` guard for GPU builds
- :mod:`~mmlu_audit.book.report` — banners and glue for the chapters
- :mod:`~mmlu_audit.book.plots` — the figures' shared style
- :mod:`~mmlu_audit.book.scorecard`, :mod:`~mmlu_audit.book.findings`,
  :mod:`~mmlu_audit.book.discussion`, :mod:`~mmlu_audit.book.performance`,
  :mod:`~mmlu_audit.book.peers` — the pages read from the executed chapters and the benchmarks
  (scorecard, landing-page findings, §6, performance and the IRT engines side by side)
- :mod:`~mmlu_audit.book.sphinxext`, :mod:`~mmlu_audit.book.sitecheck` — the site build and its
  browser check
"""
