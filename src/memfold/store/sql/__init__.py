"""The SQL the two backends share, written once.

``dialect.Dialect`` is the seam: shared statements are written with ``?`` parameters
and a backend's dialect (sqlite/dialect.py, postgres/dialect.py) says how its
database spells the few things that differ. ``tables.SQLTables`` runs them through
the backend's own query and write methods; the other modules are table mixins
(review, transcripts, jobs, scopes, log, usage) that each backend's store inherits,
adding only what really differs there (claiming jobs, appending to the log, links).
Imports flow one way: the backends import this package, never the reverse.
"""
