"""Extraction of memories from messages (issue 12 part 3): the offline rules, the
"extraction" task through the scripted OpenAI-compatible server, the extract check
(nothing invented), and failures of every kind giving no extracts, never an error."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory
from memfold.config import ConversationSettings, LLMSettings, RoleSettings, Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.conversation.extract import Extracted, extract
from memfold.judge.llm import LLMJudge
from memfold.judge.rules import RuleJudge
from memfold.model import Area, Scope
from memfold.policy.messages import Message, NewMessage, Role
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply

SCOPE = Scope(user_id="u1")
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
TALK = [
    (Role.USER, "Hi! I work as a nurse at St. Mary's in Leeds. I like hiking in the Alps."),
    (Role.ASSISTANT, "Nice to meet you. To install the tool, run pip install -U memfold."),
    (
        Role.USER,
        "The import kept failing with a libssl error. It was fixed by installing libssl-dev",
    ),
    (Role.USER, "I have two cats. Can you remind me tomorrow?"),
    (Role.USER, "My API key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c, keep it safe."),
]


def _stored(talk: list[tuple[Role, str]] = TALK) -> list[Message]:
    return [Message(f"m{n}", SCOPE.key(), n, role, text, T0) for n, (role, text) in enumerate(talk)]


def _memory(db_path: Path, embedder: LocalEmbedder, timeout_s: float) -> Memory:
    settings = Settings(conversation=ConversationSettings(extract_timeout_s=timeout_s))
    return Memory(db_path, settings=settings, embedder=embedder, consolidate="off")


@pytest.fixture
def mem(db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    # Room for a loaded machine: only the timeout test below wants a short cut-off.
    with _memory(db_path, embedder, timeout_s=30.0) as m:
        yield m


@pytest.fixture
def quick_mem(db_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    with _memory(db_path, embedder, timeout_s=2.0) as m:
        yield m


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _judge(base_url: str, **role: Any) -> LLMJudge:
    values: dict[str, Any] = {"timeout_s": 1.0, "max_retries": 0, "logprobs": False}
    values.update(role)
    return LLMJudge(
        LLMSettings(
            base_url=base_url, model="fake-model", api_key="k", utility=RoleSettings(**values)
        )
    )


def _by_area(found: list[Extracted]) -> dict[Area, list[Extracted]]:
    out: dict[Area, list[Extracted]] = {}
    for e in found:
        out.setdefault(e.area, []).append(e)
    return out


# --- offline rules -----------------------------------------------------------------------


def test_rules_extract_facts_commands_and_fixes_with_their_sources(mem: Memory) -> None:
    found = extract(mem.ctx, RuleJudge(), _stored(), SCOPE)
    got = {(e.text, e.area, e.sources) for e in found}
    assert got == {
        ("User works as a nurse at St. Mary's in Leeds", Area.MAIN, ("m0",)),
        ("User likes hiking in the Alps", Area.MAIN, ("m0",)),
        ("pip install -U memfold", Area.INSTRUMENTS, ("m1",)),
        (
            "The import kept failing with a libssl error. It was fixed by installing libssl-dev",
            Area.SOLUTIONS,
            ("m2",),
        ),
        ("User has two cats", Area.MAIN, ("m3",)),
    }
    assert {e.by for e in found} == {"rules"}


def test_rules_name_unstored_messages_by_position(mem: Memory) -> None:
    talk = [NewMessage(Role.USER, "hello there"), NewMessage(Role.USER, "I live in Porto now.")]
    (found,) = extract(mem.ctx, RuleJudge(), talk, SCOPE)
    assert (found.text, found.area) == ("User lives in Porto now", Area.MAIN)
    assert found.sources == ("#1",)


def test_rules_leave_small_talk_questions_and_the_assistant_alone(mem: Memory) -> None:
    talk = [
        (Role.USER, "Thanks, that's all. I'm not sure about it. Am I right?"),
        (Role.ASSISTANT, "I am an assistant and I like helping. My name is Bot."),
        (Role.USER, "I'm going to the shop. What do I have to buy?"),
    ]
    assert extract(mem.ctx, RuleJudge(), _stored(talk), SCOPE) == []


def test_rules_take_fenced_and_inline_commands(mem: Memory) -> None:
    talk = [
        (Role.ASSISTANT, "Start it with:\n```bash\ndocker compose up -d\n```\nthen `make test`."),
        (Role.USER, "Use `the blue one` please."),  # a code span that is no command
    ]
    found = extract(mem.ctx, RuleJudge(), _stored(talk), SCOPE)
    assert [(e.text, e.area) for e in found] == [
        ("docker compose up -d", Area.INSTRUMENTS),
        ("make test", Area.INSTRUMENTS),
    ]


# --- with an LLM (the scripted server) -------------------------------------------------------

REPLY = {
    "memories": [
        {"text": "User works as a nurse at St. Mary's in Leeds", "area": "main", "sources": [1]},
        {"text": "User thinks hiking in the Alps is nice", "area": "fragments", "sources": [1]},
        {"text": "pip install -U memfold", "area": "instruments", "sources": [2]},
        {
            "text": "The libssl error on import was fixed by installing libssl-dev",
            "area": "solutions",
            "sources": [3],
        },
    ]
}


def test_llm_extracts_into_each_area_with_message_ids(mem: Memory, server: FakeLLMServer) -> None:
    server.set_script([REPLY])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored(), SCOPE)
    areas = _by_area(found)
    assert set(areas) == {Area.MAIN, Area.FRAGMENTS, Area.INSTRUMENTS, Area.SOLUTIONS}
    assert areas[Area.SOLUTIONS][0].sources == ("m2",)
    assert areas[Area.INSTRUMENTS][0].sources == ("m1",)
    assert {e.by for e in found} == {"llm"}
    (request,) = server.chat_requests
    sent = request["messages"]
    assert sent[0]["role"] == "system" and "User" in sent[0]["content"]
    assert len(sent) > 2  # worked examples before the messages: a stable prefix
    last = sent[-1]["content"]
    assert last.startswith("Messages:\n1. user: Hi! I work as a nurse")
    assert "5. user: My API key is" in last
    # The secret never left: masked in the request.
    assert "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c" not in json.dumps(request)


def test_an_extract_with_an_invented_number_is_dropped_and_logged(
    mem: Memory, server: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    reply = {
        "memories": [
            {"text": "User has 3 cats", "area": "main", "sources": [4]},
            {"text": "User has two cats", "area": "main", "sources": [4]},
            {"text": "User works in Manchester", "area": "main", "sources": [1]},
        ]
    }
    server.set_script([reply])
    with caplog.at_level(logging.WARNING), _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored(), SCOPE)
    assert [(e.text, e.sources) for e in found] == [("User has two cats", ("m3",))]
    # Why, not what: a log line outlives a forget, so it never quotes the text.
    assert "states number" in caplog.text and "result names" in caplog.text
    assert "'3'" not in caplog.text and "anchester" not in caplog.text


def test_log_lines_never_quote_an_extract_or_a_reply_row(
    mem: Memory, server: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    # Before: 'extract "User's code word is Pumpernickel" dropped', kept in the process's
    # log after the memory's scope was forgotten.
    reply = {
        "memories": [
            {"text": "User's code word is Pumpernickel", "area": "main", "sources": [1]},
            {"text": "User said pumpernickel twice", "area": "elsewhere", "sources": [1]},
            {"text": "User likes hiking in the Alps", "area": "main", "sources": [1]},
        ]
    }
    server.set_script([reply])
    with caplog.at_level(logging.DEBUG), _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored(), SCOPE)
    assert [e.text for e in found] == ["User likes hiking in the Alps"]
    assert "dropped" in caplog.text and "invalid (area)" in caplog.text
    assert "umpernickel" not in caplog.text.lower()


def test_rows_that_name_no_listed_message_or_break_the_schema_are_dropped(
    mem: Memory, server: FakeLLMServer
) -> None:
    reply = {
        "memories": [
            {"text": "User has two cats", "area": "main", "sources": [9]},
            {"text": "User has two cats", "area": "elsewhere", "sources": [4]},
            {"area": "main", "sources": [4]},
            {"text": "User likes hiking in the Alps", "area": "main", "sources": [1]},
        ]
    }
    server.set_script([reply])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored(), SCOPE)
    assert [(e.text, e.sources) for e in found] == [("User likes hiking in the Alps", ("m0",))]


def test_messages_go_in_batches_and_sources_map_across_them(
    db_path: Path, embedder: LocalEmbedder, server: FakeLLMServer
) -> None:
    cfg = ConversationSettings(extract_batch_messages=2)
    with Memory(
        db_path, settings=Settings(conversation=cfg), embedder=embedder, consolidate="off"
    ) as mem:
        server.set_script(
            [
                {"memories": []},
                {"memories": [{"text": "User has two cats", "area": "main", "sources": [2]}]},
                {"memories": []},
            ]
        )
        with _judge(server.base_url) as judge:
            found = extract(mem.ctx, judge, _stored(), SCOPE)
    assert [(e.text, e.sources) for e in found] == [("User has two cats", ("m3",))]
    assert server.request_count() == 3


@pytest.mark.parametrize(
    "failure",
    [
        Reply(fault=Fault.SERVER_ERROR),
        Reply(fault=Fault.DELAY, delay_s=5.0),
        Reply(fault=Fault.MALFORMED),
        Reply(content="this is not JSON at all"),
        Reply(fault=Fault.WRONG_SCHEMA),
    ],
    ids=["http-500", "timeout", "malformed-body", "not-json", "wrong-schema"],
)
def test_a_failing_llm_gives_no_extracts_and_a_warning(
    quick_mem: Memory, server: FakeLLMServer, caplog: pytest.LogCaptureFixture, failure: Reply
) -> None:
    server.set_script([failure] * 4)
    # The role's own timeout is longer than the extraction's 2 s: the latter cuts it off.
    with caplog.at_level(logging.WARNING), _judge(server.base_url, timeout_s=10.0) as judge:
        found = extract(quick_mem.ctx, judge, _stored(), SCOPE)
    assert found == []
    assert "failed, no memories extracted" in caplog.text


def test_a_reply_cut_at_the_token_bound_is_asked_again_in_halves(
    mem: Memory, server: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    first_half = {"memories": [REPLY["memories"][0]]}  # message 1 of messages 1-2
    second_half = {"memories": [{**REPLY["memories"][3], "sources": [1]}]}  # 3 of 3-5
    server.set_script([Reply(fault=Fault.TRUNCATED, content=REPLY), first_half, second_half])
    with caplog.at_level(logging.WARNING), _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored(), SCOPE)
    assert [(e.text, e.sources) for e in found] == [
        ("User works as a nurse at St. Mary's in Leeds", ("m0",)),
        ("The libssl error on import was fixed by installing libssl-dev", ("m2",)),
    ]
    bodies = [r["messages"][-1]["content"] for r in server.chat_requests]
    assert [b.count("\n") for b in bodies] == [5, 2, 3]  # "Messages:" and 5, 2, 3 lines
    assert "asking again for 2 and 3" in caplog.text


def test_a_cut_reply_for_one_message_gives_no_extracts(
    mem: Memory, server: FakeLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.set_script([Reply(fault=Fault.TRUNCATED, content=REPLY)])
    with caplog.at_level(logging.WARNING), _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored()[:1], SCOPE)
    assert found == [] and server.request_count() == 1
    assert "failed, no memories extracted: LLMReplyTruncated" in caplog.text


def test_an_unreachable_llm_gives_no_extracts(mem: Memory) -> None:
    with _judge("http://127.0.0.1:9/v1") as judge:
        assert extract(mem.ctx, judge, _stored(), SCOPE) == []


def test_an_extract_holding_a_secret_is_dropped_and_the_log_masks_it(
    mem: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    talk = [(Role.USER, "My API key is sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c, keep it safe.")]
    with caplog.at_level(logging.WARNING):
        assert extract(mem.ctx, RuleJudge(), _stored(talk), SCOPE) == []
    assert "holds a secret" in caplog.text
    assert "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c" not in caplog.text


def test_the_model_sees_a_participants_name_and_may_use_it(
    mem: Memory, server: FakeLLMServer
) -> None:
    talk = [
        NewMessage(
            Role.USER, "I went to a support group yesterday.", metadata={"name": "Caroline"}
        ),
        NewMessage(Role.USER, "I painted a lake sunrise.", metadata={"name": "Melanie"}),
    ]
    reply = {
        "memories": [
            {"text": "Caroline went to a support group yesterday", "area": "main", "sources": [1]},
            {"text": "Caroline painted a lake sunrise", "area": "main", "sources": [2]},
        ]
    }
    server.set_script([reply])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, talk, SCOPE)
    # The second names the wrong participant: Melanie said it.
    assert [(e.text, e.sources) for e in found] == [
        ("Caroline went to a support group yesterday", ("#0",))
    ]
    last = server.chat_requests[0]["messages"][-1]["content"]
    assert "1. user (Caroline): I went to a support group yesterday." in last


def test_a_named_speakers_possessive_passes_and_another_participants_does_not(
    mem: Memory, server: FakeLLMServer
) -> None:
    talk = [
        NewMessage(Role.USER, "I am starting my dance studio.", metadata={"name": "Jon"}),
        NewMessage(Role.USER, "I lost my job.", metadata={"name": "Gina"}),
    ]
    reply = {
        "memories": [
            {"text": "Jon's dance studio is starting", "area": "main", "sources": [1]},
            {"text": "Jon's job was lost", "area": "main", "sources": [2]},
        ]
    }
    server.set_script([reply])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, talk, SCOPE)
    # "my" said by Jon may become "Jon's"; Gina's job is not Jon's.
    assert [(e.text, e.sources) for e in found] == [("Jon's dance studio is starting", ("#0",))]


def test_a_speakers_possessive_needs_their_own_my_and_the_thing_they_named(
    mem: Memory, server: FakeLLMServer
) -> None:
    talk = [
        NewMessage(Role.USER, "I am starting my dance studio.", metadata={"name": "Jon"}),
        NewMessage(Role.USER, "I bought a red car today.", metadata={"name": "Jon"}),
        NewMessage(
            Role.USER, "Nice! My car is blue and my studio is small.", metadata={"name": "Gina"}
        ),
    ]
    reply = {
        "memories": [
            # Jon said "my" but not "car": Gina's car is not Jon's.
            {"text": "Jon's car is blue", "area": "main", "sources": [1, 3]},
            # Jon's own "my studio": passes whatever else is cited.
            {"text": "Jon's dance studio is starting", "area": "main", "sources": [1, 3]},
            # "a red car" without "my" stays Jon's car only in the first person.
            {"text": "Jon's red car was bought today", "area": "main", "sources": [2]},
        ]
    }
    server.set_script([reply])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, talk, SCOPE)
    assert [(e.text, e.sources) for e in found] == [
        ("Jon's dance studio is starting", ("#0", "#2"))
    ]


def test_an_area_answered_as_a_list_of_choices_reads_as_the_first(
    mem: Memory, server: FakeLLMServer
) -> None:
    reply = {
        "memories": [
            {"text": "User has two cats", "area": "main|fragments", "sources": [4]},
            {"text": "User likes hiking in the Alps", "area": "Fragments", "sources": [1]},
        ]
    }
    server.set_script([reply])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored(), SCOPE)
    assert [(e.text, e.area) for e in found] == [
        ("User has two cats", Area.MAIN),
        ("User likes hiking in the Alps", Area.FRAGMENTS),
    ]


def test_an_extract_citing_the_wrong_message_is_reanchored_to_the_one_that_backs_it(
    mem: Memory, server: FakeLLMServer
) -> None:
    talk = [
        NewMessage(
            Role.USER, "I went to a support group yesterday.", metadata={"name": "Caroline"}
        ),
        NewMessage(Role.USER, "That sounds great, how was it?", metadata={"name": "Melanie"}),
        NewMessage(Role.USER, "I painted a lake sunrise.", metadata={"name": "Melanie"}),
    ]
    reply = {
        "memories": [
            # Cites Melanie's question; Caroline's own message backs it.
            {"text": "Caroline went to a support group yesterday", "area": "main", "sources": [2]},
            # Caroline never painted: no single message backs it, two together must not.
            {"text": "Caroline painted a lake sunrise", "area": "main", "sources": [1, 3]},
        ]
    }
    server.set_script([reply])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, talk, SCOPE)
    assert [(e.text, e.sources) for e in found] == [
        ("Caroline went to a support group yesterday", ("#0",))
    ]


def test_an_extract_the_model_repeats_is_kept_once(mem: Memory, server: FakeLLMServer) -> None:
    reply = {
        "memories": [
            {"text": "User has two cats", "area": "main", "sources": [4]},
            {"text": "User has two cats.", "area": "fragments", "sources": [4]},
            {"text": "user has two CATS", "area": "main", "sources": [4]},
        ]
    }
    server.set_script([reply])
    with _judge(server.base_url) as judge:
        found = extract(mem.ctx, judge, _stored(), SCOPE)
    assert [(e.text, e.area, e.sources) for e in found] == [
        ("User has two cats", Area.MAIN, ("m3",))
    ]


def test_extraction_uses_the_format_the_judge_learned(mem: Memory, server: FakeLLMServer) -> None:
    with _judge(server.base_url, json_schema=True) as judge:
        judge.client.knowledge.formats[judge.client.role("extraction").endpoint] = "json_object"
        server.set_script([REPLY, REPLY])
        assert extract(mem.ctx, judge, _stored(), SCOPE)
        assert extract(mem.ctx, judge, _stored(), SCOPE)
    kinds = [r.get("response_format", {}).get("type") for r in server.chat_requests]
    assert kinds == ["json_object", "json_object"]
