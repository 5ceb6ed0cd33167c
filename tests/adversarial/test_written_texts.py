"""An adversarial judge on every path where memfold applies a text a judge wrote.

Each case of ``adversarial.cases`` goes down its own path (on-save UPDATE/MERGE, review
merge, lifecycle compression, conversation summary, extraction) through the real LLM
client and the scripted server, and the store is read afterwards:

- a false text must not be applied: no active memory (or summary part) holds it, and its
  sources come through unchanged;
- an honest text must be applied.

Either way the judge must have been asked for the text: a case whose path never reached
the writing step tests nothing, and fails as such.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adversarial.cases import CASES, Case
from adversarial.support import RUNNERS, WritingJudge
from memfold.embed.local import LocalEmbedder
from memfold.testing.fake_llm import FakeLLMServer


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_written_text_is_applied_only_when_it_is_true(
    case: Case, llm_server: FakeLLMServer, embedder: LocalEmbedder, tmp_path: Path
) -> None:
    judge = WritingJudge(case)
    llm_server.set_script(judge)
    llm_server.reset_records()
    out = RUNNERS[case.route](case, judge, tmp_path / "m.db", llm_server.base_url, embedder)
    assert out.asked, f"{case.id}: the path never asked the judge for a text\n{out.describe()}"
    if case.false:
        assert not out.applied, (
            f"{case.id}: a false text was applied ({case.why}): {case.text!r}\n{out.describe()}"
        )
        assert out.sources_kept, f"{case.id}: the sources did not come through\n{out.describe()}"
    else:
        assert out.applied, f"{case.id}: an honest text was refused\n{out.describe()}"
