"""The PreTask/PostTask wrapper: memory for an existing agent loop in two calls.

    agent = client.agent(agent_id="coder", project_id="atlas")
    pack = agent.pre_task(prompt)        # before: the memories that matter, packed
    output = run_my_agent(pack.context + "\\n\\n" + prompt)
    agent.post_task(output=output, succeeded=True)   # after: what happened

or, as one block, ``with client.task(prompt) as task: ...``.

The semantics are the Go client's (client.Agent): pre_task retrieves for the
prompt (an empty pack while the namespace holds nothing) and notes it;
record adds tool calls and messages along the way; post_task captures the
prompt, those events and the result (a task_result event whose metadata
carries outcome and retrieval_id) as one session, then hands the outcome to
the feedback hook, when set. One agent runs one task at a time.
"""
from __future__ import annotations

import os
import threading
import warnings
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Type, TypedDict, Union

from ._generated import CaptureRequest, CaptureResponse, EventInput, FeedbackRequest, RetrieveItem, RetrieveRequest
from .errors import MnemonError

if TYPE_CHECKING:
    from .client import AsyncClient, Client

# The server's limit on a retrieval query, in bytes.
MAX_QUERY_BYTES = 4096


class _RecordedEventRequired(TypedDict):
    kind: str
    """tool_call, tool_result, agent_message, user_message, observation..."""
    content: str


class RecordedEvent(_RecordedEventRequired, total=False):
    """An event for Agent.record: an EventInput whose time may be left out (then: now)."""

    occurred_at: str
    speaker: str
    metadata: Dict[str, str]


@dataclass
class Pack:
    """What pre_task hands the agent."""

    context: str
    """The packed memory, ready to put before the prompt; empty when nothing is known yet."""
    retrieval_id: str
    """The retrieval (see Client.get_trace); empty when the namespace held nothing."""
    session_id: str
    """The session post_task captures into."""
    items: List[RetrieveItem] = field(default_factory=list)
    """The packed memories with their reasons."""


@dataclass
class TaskResult:
    """How a task went."""

    output: str = ""
    """What the agent produced."""
    succeeded: bool = True
    severity: float = 0.0
    """How bad a failure was, from 0 (unstated: the server's default) to 1."""
    used_memory_ids: List[str] = field(default_factory=list)
    """The packed memories the output relied on, when the agent can tell."""
    metadata: Dict[str, str] = field(default_factory=dict)
    """Goes on the task_result event."""


@dataclass
class PostTaskResult:
    """What post_task stored."""

    session_id: str
    retrieval_id: str
    capture: CaptureResponse


#: A feedback hook: called with the retrieval id and the task's result.
FeedbackHook = Callable[[str, TaskResult], Any]


class _TaskState:
    def __init__(self, session_id: str, retrieval_id: str, events: List[EventInput]) -> None:
        self.session_id = session_id
        self.retrieval_id = retrieval_id
        self.events = events


class _AgentBase:
    def __init__(
        self,
        agent_id: Optional[str] = None,
        user_id: Optional[str] = None,
        project_id: Optional[str] = None,
        session_id: Optional[str] = None,
        task_type: Optional[str] = None,
        token_budget: int = 0,
        limit: int = 0,
        feedback: Union[bool, FeedbackHook, None] = None,
    ) -> None:
        self.agent_id = agent_id
        self.user_id = user_id
        self.project_id = project_id
        self.session_id = session_id
        self.task_type = task_type
        self.token_budget = token_budget
        self.limit = limit
        self.feedback = feedback
        self._lock = threading.Lock()
        self._task: Optional[_TaskState] = None

    def _retrieve_request(self, prompt: str) -> RetrieveRequest:
        req: RetrieveRequest = {"query": _cut(prompt, MAX_QUERY_BYTES)}
        if self.limit:
            req["limit"] = self.limit
        if self.token_budget:
            req["token_budget"] = self.token_budget
        if self.task_type:
            req["task_type"] = self.task_type
        if self.agent_id:
            req["agent_id"] = self.agent_id
        if self.user_id:
            req["user_id"] = self.user_id
        if self.project_id:
            req["project_id"] = self.project_id
        if self.session_id:
            req["session_id"] = self.session_id
        return req

    def _start(self, prompt: str, context: str, retrieval_id: str, items: List[RetrieveItem], sid: str) -> Pack:
        event: EventInput = {"kind": "user_message", "content": prompt, "occurred_at": _now()}
        self._task = _TaskState(sid, retrieval_id, [event])
        return Pack(context=context, retrieval_id=retrieval_id, session_id=sid, items=items)

    def _check_idle(self) -> str:
        if self._task is not None:
            raise RuntimeError(
                f"mnemon: pre_task: task of session {self._task.session_id} has not ended; call post_task first"
            )
        return self.session_id or _new_session_id()

    def record(self, event: RecordedEvent) -> None:
        """Adds an event of the running task (a tool call, an agent message...)
        to the session post_task captures; an event without a time is dated now."""
        with self._lock:
            if self._task is None:
                raise RuntimeError("mnemon: record without pre_task: no task is running")
            ev: EventInput = {"kind": event["kind"], "content": event["content"],
                              "occurred_at": event.get("occurred_at") or _now()}
            if "speaker" in event:
                ev["speaker"] = event["speaker"]
            if "metadata" in event:
                ev["metadata"] = dict(event["metadata"])
            self._task.events.append(ev)

    def _capture_request(self, t: _TaskState, result: TaskResult) -> CaptureRequest:
        meta = dict(result.metadata)
        meta["outcome"] = "success" if result.succeeded else "failure"
        if t.retrieval_id:
            meta["retrieval_id"] = t.retrieval_id
        if self.task_type and "task_type" not in meta:
            meta["task_type"] = self.task_type
        final: EventInput = {
            "kind": "task_result",
            "content": result.output or f"(no output; outcome {meta['outcome']})",
            "speaker": "agent",
            "occurred_at": _now(),
            "metadata": meta,
        }
        req: CaptureRequest = {"session_id": t.session_id, "events": list(t.events) + [final]}
        if self.agent_id:
            req["agent_id"] = self.agent_id
        if self.user_id:
            req["user_id"] = self.user_id
        if self.project_id:
            req["project_id"] = self.project_id
        return req


class Agent(_AgentBase):
    """Adds memory to an existing agent loop in two calls (see the module doc).

    Args:
        client: the Client to call.
        agent_id, user_id, project_id: the scope of the memories retrieved and
            of the session captured.
        session_id: the session to capture into; None makes each task its
            own session (ses_<date>_<random>).
        task_type: selects procedures and task-specific memories, and goes on
            the task_result event.
        token_budget, limit: bound the packed context (0: the server's defaults).
        feedback: True sends feedback for the retrieval after each task
            (helpful on success, harmful with severity on failure); a callable
            (retrieval_id, TaskResult) is called instead; None sends none.
    """

    def __init__(self, client: "Client", **options: Any) -> None:
        super().__init__(**options)
        self.client = client

    def pre_task(self, prompt: str) -> Pack:
        """Starts a task: retrieves the memories that matter for prompt and
        notes the prompt for post_task. A namespace that holds nothing yet
        gives an empty Pack, not an error. A prompt longer than the server
        takes as a query (4096 bytes) is cut for the retrieval and kept whole
        for the capture."""
        with self._lock:
            sid = self._check_idle()
            try:
                res = self.client.retrieve(self._retrieve_request(prompt))
            except MnemonError as err:
                # An older server's answer for a namespace that holds nothing
                # yet; newer ones answer an empty retrieval.
                if err.code != "namespace_not_found":
                    raise
                return self._start(prompt, "", "", [], sid)
            return self._start(prompt, res["context"], res["retrieval_id"], list(res["items"] or []), sid)

    def post_task(
        self,
        output: str = "",
        succeeded: bool = True,
        severity: float = 0.0,
        used_memory_ids: Optional[List[str]] = None,
        metadata: Optional[Dict[str, str]] = None,
    ) -> PostTaskResult:
        """Ends the task: captures the session log (the prompt, the recorded
        events and the result as a task_result event), then sends feedback
        when the agent has a feedback hook. If the capture fails the task
        stays open, so post_task can be called again; once the capture is
        stored the task has ended, even if the feedback fails (its error is
        raised with the stored result as .post_task_result)."""
        result = TaskResult(output, succeeded, severity, list(used_memory_ids or []), dict(metadata or {}))
        with self._lock:
            t = self._task
            if t is None:
                raise RuntimeError("mnemon: post_task without pre_task: no task is running")
            capture = self.client.capture(self._capture_request(t, result))
            self._task = None
        out = PostTaskResult(session_id=t.session_id, retrieval_id=t.retrieval_id, capture=capture)
        if self.feedback and t.retrieval_id:
            try:
                if self.feedback is True:
                    self.send_feedback(t.retrieval_id, result)
                elif callable(self.feedback):
                    self.feedback(t.retrieval_id, result)
            except Exception as err:
                err.post_task_result = out  # type: ignore[attr-defined]
                raise
        return out

    def send_feedback(self, retrieval_id: str, result: TaskResult) -> None:
        """Rates the memories of a retrieval on the server: helpful when the
        task succeeded, harmful with result.severity when it failed. The
        output lets the server tell which packed memories were used (only
        those are reinforced or blamed). Repeating it changes nothing."""
        self.client.feedback(retrieval_id, _feedback_for(result))

    def task(self, prompt: str) -> "Task":
        """The task as a context manager (see Client.task)."""
        return Task(self, prompt)


class AsyncAgent(_AgentBase):
    """Agent for AsyncClient: pre_task, post_task and send_feedback are coroutines."""

    def __init__(self, client: "AsyncClient", **options: Any) -> None:
        super().__init__(**options)
        self.client = client

    async def pre_task(self, prompt: str) -> Pack:
        """See Agent.pre_task."""
        sid = self._check_idle()
        try:
            res = await self.client.retrieve(self._retrieve_request(prompt))
        except MnemonError as err:
            if err.code != "namespace_not_found":
                raise
            return self._start(prompt, "", "", [], sid)
        if self._task is not None:  # another coroutine started a task meanwhile
            self._check_idle()
        return self._start(prompt, res["context"], res["retrieval_id"], list(res["items"] or []), sid)

    async def post_task(
        self,
        output: str = "",
        succeeded: bool = True,
        severity: float = 0.0,
        used_memory_ids: Optional[List[str]] = None,
        metadata: Optional[Dict[str, str]] = None,
    ) -> PostTaskResult:
        """See Agent.post_task."""
        result = TaskResult(output, succeeded, severity, list(used_memory_ids or []), dict(metadata or {}))
        t = self._task
        if t is None:
            raise RuntimeError("mnemon: post_task without pre_task: no task is running")
        capture = await self.client.capture(self._capture_request(t, result))
        if self._task is t:
            self._task = None
        out = PostTaskResult(session_id=t.session_id, retrieval_id=t.retrieval_id, capture=capture)
        if self.feedback and t.retrieval_id:
            try:
                if self.feedback is True:
                    await self.send_feedback(t.retrieval_id, result)
                elif callable(self.feedback):
                    maybe = self.feedback(t.retrieval_id, result)
                    if hasattr(maybe, "__await__"):
                        await maybe
            except Exception as err:
                err.post_task_result = out  # type: ignore[attr-defined]
                raise
        return out

    async def send_feedback(self, retrieval_id: str, result: TaskResult) -> None:
        """See Agent.send_feedback."""
        await self.client.feedback(retrieval_id, _feedback_for(result))

    def task(self, prompt: str) -> "AsyncTask":
        """The task as an async context manager (see Client.task)."""
        return AsyncTask(self, prompt)


class _TaskBase:
    def __init__(self, prompt: str) -> None:
        self.prompt = prompt
        self.pack: Optional[Pack] = None
        #: Set these inside the block; they become the task's result.
        self.output = ""
        self.succeeded: Optional[bool] = None  # None: True unless the block raised
        self.severity = 0.0
        self.used_memory_ids: List[str] = []
        self.metadata: Dict[str, str] = {}
        #: What post_task stored, once the block has ended.
        self.result: Optional[PostTaskResult] = None

    @property
    def context(self) -> str:
        """The packed memory for the prompt."""
        return self.pack.context if self.pack else ""

    @property
    def retrieval_id(self) -> str:
        return self.pack.retrieval_id if self.pack else ""

    @property
    def session_id(self) -> str:
        return self.pack.session_id if self.pack else ""

    def _outcome(self, raised: bool) -> Dict[str, Any]:
        succeeded = (not raised) if self.succeeded is None else (self.succeeded and not raised)
        return {
            "output": self.output,
            "succeeded": succeeded,
            "severity": self.severity,
            "used_memory_ids": self.used_memory_ids,
            "metadata": self.metadata,
        }


class Task(_TaskBase):
    """``with agent.task(prompt) as task``: pre_task on entry, post_task on exit.

    A block that raises is captured as a failure and its exception goes on
    (a failing capture then only warns, so it never hides the block's error).
    """

    def __init__(self, agent: Agent, prompt: str) -> None:
        super().__init__(prompt)
        self.agent = agent

    def record(self, event: RecordedEvent) -> None:
        """Adds an event (a tool call, a message...) to the task's session."""
        self.agent.record(event)

    def __enter__(self) -> "Task":
        self.pack = self.agent.pre_task(self.prompt)
        return self

    def __exit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        if exc is None:
            self.result = self.agent.post_task(**self._outcome(False))
            return
        try:
            self.result = self.agent.post_task(**self._outcome(True))
        except Exception as err:  # the block's own exception matters more
            warnings.warn(f"mnemon: capturing the failed task: {err}", RuntimeWarning, stacklevel=2)


class AsyncTask(_TaskBase):
    """``async with agent.task(prompt) as task``: see Task."""

    def __init__(self, agent: AsyncAgent, prompt: str) -> None:
        super().__init__(prompt)
        self.agent = agent

    def record(self, event: RecordedEvent) -> None:
        """Adds an event (a tool call, a message...) to the task's session."""
        self.agent.record(event)

    async def __aenter__(self) -> "AsyncTask":
        self.pack = await self.agent.pre_task(self.prompt)
        return self

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        if exc is None:
            self.result = await self.agent.post_task(**self._outcome(False))
            return
        try:
            self.result = await self.agent.post_task(**self._outcome(True))
        except Exception as err:
            warnings.warn(f"mnemon: capturing the failed task: {err}", RuntimeWarning, stacklevel=2)


def _feedback_for(result: TaskResult) -> FeedbackRequest:
    req: FeedbackRequest = {"outcome": "helpful", "source": "agent", "task_succeeded": result.succeeded}
    if result.output:
        req["output"] = result.output
    if result.used_memory_ids:
        req["memory_ids"] = list(result.used_memory_ids)
    if not result.succeeded:
        req["outcome"] = "harmful"
        if result.severity:
            req["severity"] = result.severity
    return req


def _cut(s: str, n: int) -> str:
    """s shortened to at most n UTF-8 bytes without splitting a character."""
    b = s.encode("utf-8")
    if len(b) <= n:
        return s
    return b[:n].decode("utf-8", errors="ignore")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _new_session_id() -> str:
    return "ses_" + datetime.now(timezone.utc).strftime("%Y%m%d") + "_" + os.urandom(10).hex()
