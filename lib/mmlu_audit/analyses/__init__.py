"""The paper's analyses, one module or subpackage per section or appendix.

=====================  ===============================================================
paper                  module
=====================  ===============================================================
§3 shared inputs       :mod:`~mmlu_audit.analyses.pipeline` (cached features and fits)
§3 the instrument      :mod:`~mmlu_audit.analyses.instrument`
§4 item side           :mod:`~mmlu_audit.analyses.regression` (designs, cross-validation,
                       contrasts, planted truth)
§5 model side          :mod:`~mmlu_audit.analyses.modelside` (reasoning sensitivity, 3PL
                       null, native interaction, rank stability)
§6 capacity indices    :mod:`~mmlu_audit.analyses.capacity`
Appendix A             :mod:`~mmlu_audit.analyses.robustness`
Appendix B             :mod:`~mmlu_audit.analyses.option_set`, :mod:`~mmlu_audit.analyses.splines`
Appendix C             :mod:`~mmlu_audit.analyses.subscales` (the 2D and explanatory IRT
                       models are engines: :mod:`mmlu_audit.irt`)
Appendix D             :mod:`~mmlu_audit.analyses.redux`, :mod:`~mmlu_audit.analyses.dif`
MMLU-Pro               :mod:`~mmlu_audit.analyses.pro`
answer-key audit       :mod:`~mmlu_audit.analyses.consensus`
real leaderboard       :mod:`~mmlu_audit.analyses.real_leaderboard` (4,278 models × 102 items)
validity appendix      :mod:`~mmlu_audit.analyses.validity`
prompt comparison      :mod:`~mmlu_audit.analyses.prompt_effect` (gpt-4-1106-preview, HELM vs
                       RouteLLM)
=====================  ===============================================================

A new appendix's analysis is a new module here; it may import the engines, the worlds, the
data and core layers, and its siblings, never :mod:`mmlu_audit.book` or the commands.
"""
