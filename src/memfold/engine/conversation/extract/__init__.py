"""Memories from messages (seed 000 section 7, auto-memorize): ``extract(...)``.

One module a job: ``checked`` (``extract``: the LLM or the rules, then the extract
check and the secret check on every extract), ``llm`` (the "extraction" task),
``rules`` (the offline extractor), and the rules' reading of a sentence on memfold's
one parse: ``clauses`` (where a sentence splits into statements), ``person`` (the
speaker's first person as the user's third) and ``statement`` (one clause as one
well-formed fact, or nothing).
"""

from memfold.engine.conversation.extract.checked import Extracted, extract, source_id

__all__ = ["Extracted", "extract", "source_id"]
