"""Batch review: find candidate pairs (``scan``), sort them into actions by confidence
(``classify``), merge under the result check and the circuit breaker (``merge``), run
and record whole review runs (``runs``), the ``Review`` facade (``api``) and the run
report with its charts (``report``, ``report_charts``)."""
