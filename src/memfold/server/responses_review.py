"""Response bodies of ``/v1/review``, ``/v1/tick`` and ``/v1/conversations`` (see
responses.py: how the routes use them)."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from memfold.model import PairLabel
from memfold.policy.messages import Role
from memfold.policy.summary_parts import PartKind
from memfold.server.responses import JSONObject, Number, Shape

# review --------------------------------------------------------------------------------


class QueueCountsOut(Shape):
    by_status: dict[str, int] = Field(description="review queue items by status")
    by_label: dict[str, int] = Field(description="labelled items by label")


class BreakerOut(Shape):
    """The circuit breaker: ``open`` stops merges until a resume. An admin key's view also
    holds its history (opened_at, run_id, anomalies...)."""

    model_config = ConfigDict(extra="allow")

    open: bool


class FeedbackCountsOut(Shape):
    records: int = Field(description="feedback given so far")
    cold_start: int = Field(description="how many the feedback rules wait for")


class ReviewStatusOut(Shape):
    """Queue counts, the breaker, the kill switch. A key bound to a user: its own items'
    counts, whether the breaker is open, and no ``feedback`` nor ``merges_today``."""

    queue: QueueCountsOut
    breaker: BreakerOut
    kill_switch: bool
    feedback: FeedbackCountsOut | None = None
    merges_today: int | None = None
    daily_merge_cap: int


class QueueItemOut(Shape):
    """A pair of memories in the review queue (``QueueItem.to_dict()``)."""

    id: int
    scope_key: str
    memory_a: str
    memory_b: str
    similarity: Number
    label: PairLabel | None
    confidence: Number | None
    reasoning: str
    status: str = Field(description="pending, classified, held, review, done...")
    created_at: str
    processed_at: str | None
    run_id: int | None
    proposal: JSONObject | None = Field(description="a held merge's proposal")
    note: str


class ReviewPendingOut(Shape):
    held: list[QueueItemOut] = Field(description="merges held for a person")
    contradictions: list[QueueItemOut]
    supersedes: list[QueueItemOut] = Field(description="supersedes the rules saw no evidence for")
    flagged_by_feedback: list[str] = Field(description="memory ids")


class ReviewLogIdOut(Shape):
    log_id: int | None = Field(description="the change's log row (null: nothing written)")


class ReviewRunOut(Shape):
    """One review run (``ReviewRun.to_dict()``)."""

    id: int
    scope_key: str | None = Field(description="null: every scope")
    started_at: str
    finished_at: str | None
    status: str = Field(description="running, done, halted or failed")
    p90: Number | None
    counts: JSONObject
    breaker: JSONObject
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int


class ResumedOut(Shape):
    """The breaker, closed."""

    open: bool
    history: list[JSONObject] = Field(description="when it opened and was resumed")


# the lifecycle -------------------------------------------------------------------------


class ConflictOut(Shape):
    memory_a: str
    memory_b: str
    source: str = Field(description="link or queue")


class CompressionOut(Shape):
    original_ids: list[str]
    summary_id: str | None
    log_id: int | None = Field(description="null: nothing written (see skipped)")
    text: str | None
    judge: str
    fallback: str | None = Field(description="why the judge's summary was not used")
    skipped: str | None


class TickReportOut(Shape):
    time: str
    scanned: int
    expired: list[str]
    promoted: list[str] = Field(description="ids promoted to core")
    cold: list[str] = Field(description="ids moved to the cold tier")
    conflicts: list[ConflictOut]
    compressions: list[CompressionOut]
    log_ids: list[int]
    compression: str = Field(description='"ran", or why it did not')


# conversations -------------------------------------------------------------------------


class MessageOut(Shape):
    """A message of a transcript."""

    id: str
    session: str
    position: int = Field(description="from 0 within the session")
    role: Role
    content: str
    created_at: str
    metadata: JSONObject


class MessagesOut(Shape):
    messages: list[MessageOut]


class TranscriptOut(Shape):
    messages: list[MessageOut]
    count: int = Field(description="messages in the whole session")


class SummaryPartOut(Shape):
    """A part of the session summary, or a note."""

    id: str
    session: str
    part: int
    kind: PartKind
    text: str
    covers_from: int | None = Field(description="the first message position it covers")
    covers_to: int | None
    replaces: list[str] = Field(description="the parts a meta part replaces")
    created_at: str


class SummaryOut(Shape):
    parts: list[SummaryPartOut]


class ChatMessageOut(Shape):
    role: str
    content: str
    name: str | None = Field(None, description="the participant's name, where it has one")


class WindowOut(Shape):
    messages: list[ChatMessageOut] = Field(description="for the chat model, in order")
