"""Quality evaluation of consolidation on public data sets (``memfold eval``).

Nothing here is needed at run time by the library; it reads data from a path
given by the caller (default ``../shared/bench-data``) and never bundles it.
"""
