"""``/v1/conversations/{session_id}``: a session's transcript (append, list, export),
its summary, notes, and the chat window (Memory.conversation). A session lives under a
user (and agent): a key bound to a user reaches only its own user's sessions."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from memfold.engine.conversation.session import Conversation
from memfold.memory import Memory
from memfold.model import ApiKey, JSONDict
from memfold.policy.validate import INT64_MAX
from memfold.server.auth import MemoryDep, request_scope
from memfold.server.responses_review import (
    MessageOut,
    MessagesOut,
    SummaryOut,
    SummaryPartOut,
    TranscriptOut,
    WindowOut,
)
from memfold.server.routes.deps import Count, ReadKey, WriteKey
from memfold.server.schemas import AppendMessagesRequest, NoteRequest, WindowRequest, message_dicts

router = APIRouter(prefix="/conversations/{session_id}", tags=["conversations"])

UserQ = Annotated[str | None, Query(description="user_id (a key bound to a user: its own)")]
AgentQ = Annotated[str | None, Query()]


def _open(
    key: ApiKey, memory: Memory, session_id: str, user_id: str | None, agent_id: str | None
) -> Conversation:
    owner = request_scope(key, memory, user_id, agent_id, None)
    return memory.conversation(session_id, user_id=owner.user_id, agent_id=owner.agent_id)


@router.post(
    "/messages",
    summary="Append messages (all checked first, one transaction)",
    response_model=MessagesOut,
    response_model_exclude_unset=True,
)
def append_messages(
    session_id: str, body: AppendMessagesRequest, key: WriteKey, memory: MemoryDep
) -> JSONDict:
    chat = _open(key, memory, session_id, body.user_id, body.agent_id)
    added = chat.extend(message_dicts(body.messages))
    return {"messages": [m.to_dict() for m in added]}


@router.get(
    "/messages",
    summary="The transcript, or a slice of it by position",
    response_model=TranscriptOut,
    response_model_exclude_unset=True,
)
def list_messages(
    session_id: str,
    key: ReadKey,
    memory: MemoryDep,
    user_id: UserQ = None,
    agent_id: AgentQ = None,
    start: Count = 0,
    end: Annotated[int | None, Query(ge=0, le=INT64_MAX)] = None,
) -> JSONDict:
    chat = _open(key, memory, session_id, user_id, agent_id)
    return {"messages": [m.to_dict() for m in chat.transcript(start, end)], "count": len(chat)}


@router.get(
    "/export",
    summary="The transcript as JSONL, one message per line",
    response_class=Response,
    responses={
        200: {
            "description": f"JSONL: one {MessageOut.__name__} per line",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
)
def export_messages(
    session_id: str, key: ReadKey, memory: MemoryDep, user_id: UserQ = None, agent_id: AgentQ = None
) -> Response:
    chat = _open(key, memory, session_id, user_id, agent_id)
    lines = [json.dumps(m.to_dict(), ensure_ascii=False) + "\n" for m in chat.transcript()]
    return Response("".join(lines), media_type="application/x-ndjson")


@router.get(
    "/summary",
    summary="Every part of the session summary, in order",
    response_model=SummaryOut,
    response_model_exclude_unset=True,
)
def conversation_summary(
    session_id: str, key: ReadKey, memory: MemoryDep, user_id: UserQ = None, agent_id: AgentQ = None
) -> JSONDict:
    chat = _open(key, memory, session_id, user_id, agent_id)
    return {"parts": [p.to_dict() for p in chat.summary()]}


@router.post(
    "/notes",
    summary="A note of the agent's own, shown in every window",
    response_model=SummaryPartOut,
    response_model_exclude_unset=True,
)
def add_note(session_id: str, body: NoteRequest, key: WriteKey, memory: MemoryDep) -> JSONDict:
    chat = _open(key, memory, session_id, body.user_id, body.agent_id)
    return chat.note(body.text).to_dict()


@router.post(
    "/window",
    summary="The chat messages to send now (writes summary parts due)",
    response_model=WindowOut,
    response_model_exclude_unset=True,
)
def conversation_window(
    session_id: str, body: WindowRequest, key: WriteKey, memory: MemoryDep
) -> JSONDict:
    chat = _open(key, memory, session_id, body.user_id, body.agent_id)
    messages = chat.messages(body.user_message, body.system_prompt, body.k_memories)
    return {"messages": messages}
