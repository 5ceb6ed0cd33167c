"""memfold's reliability suite (``benchmarks/bench_reliability.py``): one module a section.

kills (SIGKILL of writers and workers), concurrent (several writers, one file),
adversarial + replies + oracle (a hostile judge through the real LLM client), injection
(instructions hidden in memories), bad_input (API and CLI); corpus, child, common shared;
run, report, docs put the figures together.
"""
