"""Statistics for decisions: error bars, paired comparisons, repeated trials, sample sizes.

An evaluation is a sample of the cases an agent will meet; these functions say
how far its numbers can be trusted. Everything is numpy and plain Python (no
SciPy at run time); the tests hold each function to SciPy or statsmodels.

>>> from agentmetrics.stats import proportion_interval, sample_size
>>> print(proportion_interval(9, 50))
0.18 [0.0977, 0.308] (95% CI, wilson)
>>> sample_size(0.05, baseline=0.18)  # tasks per agent to see 18% -> 23%
1023

Most users meet these through :meth:`agentmetrics.EvaluationResult.summary`,
:meth:`agentmetrics.EvaluationResult.trials` and :func:`agentmetrics.compare`.
"""

from agentmetrics.stats._intervals import Interval, mean_interval, proportion_interval
from agentmetrics.stats._power import sample_size
from agentmetrics.stats._tests import Difference, mcnemar_exact, paired_difference
from agentmetrics.stats._trials import pass_at_k, pass_hat_k

__all__ = [
    "Difference",
    "Interval",
    "mcnemar_exact",
    "mean_interval",
    "paired_difference",
    "pass_at_k",
    "pass_hat_k",
    "proportion_interval",
    "sample_size",
]
