"""Memory.forget of a scope erases its conversations too (transcripts and summary
parts); forget of one memory leaves them; other scopes keep theirs."""

from __future__ import annotations

from memfold import Memory


def test_forget_of_a_user_erases_their_sessions(mem_off: Memory) -> None:
    mem_off.add("Ana lives in Lisbon", user_id="ana")
    ana = mem_off.conversation("s1", user_id="ana")
    ana.append("user", "My passport number is X1234567")
    ana.note("Ana prefers short answers")
    mem_off.conversation("s2", user_id="ana", agent_id="helper").append("user", "hello")
    bo = mem_off.conversation("s1", user_id="bo")
    bo.append("user", "Bo stays")
    dry = mem_off.forget(user_id="ana", dry_run=True)
    assert len(dry.sessions) == 2 and len(ana.transcript()) == 1
    report = mem_off.forget(user_id="ana")
    assert report.rows_removed["transcripts"] == 3
    assert ana.transcript() == [] and ana.summary() == []
    assert mem_off.conversation("s2", user_id="ana", agent_id="helper").transcript() == []
    assert [m.content for m in bo.transcript()] == ["Bo stays"]


def test_a_scope_with_only_a_conversation_can_be_forgotten(mem_off: Memory) -> None:
    conv = mem_off.conversation("only", user_id="cy")
    conv.append("user", "nothing memorable")
    report = mem_off.forget(session_id="only")
    assert report.erased == [] and report.sessions == [conv.key]
    assert conv.transcript() == []


def test_forget_of_one_memory_keeps_the_conversation(mem_off: Memory) -> None:
    memory = mem_off.add("Dee likes jazz", user_id="dee").memory
    conv = mem_off.conversation("s1", user_id="dee")
    conv.append("user", "I like jazz")
    report = mem_off.forget(memory.id)
    assert report.sessions == [] and [m.content for m in conv.transcript()] == ["I like jazz"]
