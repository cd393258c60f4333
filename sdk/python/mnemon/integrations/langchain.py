"""LangChain chat history and a LangGraph long-term store, kept in mnemon.

    from mnemon.integrations.langchain import MnemonChatMessageHistory, MnemonStore

    history = MnemonChatMessageHistory(mnemon.Client(), session_id="chat-7")
    chain = RunnableWithMessageHistory(llm_chain, lambda sid: MnemonChatMessageHistory(client, sid))

    store = MnemonStore(mnemon.Client())          # LangGraph BaseStore
    graph = builder.compile(store=store)

``MnemonChatMessageHistory`` is a ``BaseChatMessageHistory`` (``messages``,
``add_messages``, ``clear``) when ``langchain_core`` is installed: each
message is captured as an episode of the session, with LangChain's own dict
form of it (``message_to_dict``) in the metadata so ``messages`` gives the
same messages back in a later process. ``context(query)`` packs what mnemon
knows for a prompt (from every session). ``clear`` starts this history
afresh; mnemon keeps the episodes.

``MnemonStore`` is a LangGraph ``BaseStore`` (``batch``/``abatch`` of get,
put, search and list-namespaces operations) when ``langgraph`` is installed;
its framework-free part is ``MnemonKeyValueStore``: an item is a keyed fact
(subject ``langgraph_store``, key ``lg:`` + a digest of namespace and key,
value the JSON of namespace, key and value), so it is versioned, searchable
and explainable like any other memory, and a put replaces the previous value
(the old one stays in the fact's history).
"""
from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ..client import Client
from ..errors import MnemonError
from ._common import ITEM_KEY, SessionMemory, event, kind_of, optional_import, parse_time, text_of

# The framework classes exist only where the framework is installed.
_lc = optional_import("langchain_core.chat_history", "BaseChatMessageHistory")
_lcm = optional_import("langchain_core.messages", "message_to_dict", "messages_from_dict")
HAVE_LANGCHAIN = _lc is not None and _lcm is not None
_HistoryBase: Any = _lc[0] if _lc else object


@dataclass
class MessageCodec:
    """How messages become dicts and back: LangChain's message_to_dict and
    messages_from_dict by default."""

    to_dict: Callable[[Any], Dict[str, Any]]
    from_dicts: Callable[[List[Dict[str, Any]]], List[Any]]


def _default_codec() -> MessageCodec:
    if not HAVE_LANGCHAIN:
        raise ImportError("mnemon: MnemonChatMessageHistory needs langchain-core (pip install langchain-core), or a codec")
    assert _lcm is not None
    return MessageCodec(_lcm[0], _lcm[1])


def message_to_event(message: Any, codec: MessageCodec) -> Any:
    """The episode a LangChain message becomes: its type (human, ai, system,
    tool) gives the kind, its text the content, its dict form the metadata."""
    typ = str(getattr(message, "type", "") or "")
    text = text_of(getattr(message, "content", "")) or "(no text)"
    speaker = "user" if typ == "human" else ("tool" if typ == "tool" else "agent")
    return event(kind_of(typ), text, speaker, codec.to_dict(message))


class MnemonChatMessageHistory(_HistoryBase):  # type: ignore[misc]
    """LangChain chat history in mnemon (see the module doc)."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        *,
        agent_id: Optional[str] = None,
        user_id: Optional[str] = None,
        project_id: Optional[str] = None,
        token_budget: int = 0,
        codec: Optional[MessageCodec] = None,
    ) -> None:
        self.memory = SessionMemory(
            client, session_id, agent_id=agent_id, user_id=user_id, project_id=project_id, token_budget=token_budget
        )
        self.codec = codec or _default_codec()
        self._dicts: Optional[List[Dict[str, Any]]] = None

    def _load(self) -> List[Dict[str, Any]]:
        if self._dicts is None:
            dicts: List[Dict[str, Any]] = []
            for ep in self.memory.episodes():
                raw = (ep.get("metadata") or {}).get(ITEM_KEY)
                if raw:
                    dicts.append(json.loads(raw))
                else:
                    typ = "human" if ep.get("kind") == "user_message" else "ai"
                    dicts.append({"type": typ, "data": {"content": ep.get("content", ""), "type": typ}})
            self._dicts = dicts
        return self._dicts

    @property
    def messages(self) -> List[Any]:
        """The session's messages, oldest first."""
        return list(self.codec.from_dicts(list(self._load())))

    def add_messages(self, messages: Sequence[Any]) -> None:
        """Captures messages as episodes of the session."""
        history = self._load()
        if not messages:
            return
        self.memory.capture([message_to_event(m, self.codec) for m in messages])
        history.extend(self.codec.to_dict(m) for m in messages)

    def add_message(self, message: Any) -> None:
        self.add_messages([message])

    async def aget_messages(self) -> List[Any]:
        return await asyncio.to_thread(lambda: self.messages)

    async def aadd_messages(self, messages: Sequence[Any]) -> None:
        await asyncio.to_thread(self.add_messages, messages)

    def clear(self) -> None:
        """Starts this history afresh (mnemon keeps the episodes)."""
        self._dicts = []

    async def aclear(self) -> None:
        self.clear()

    def context(self, query: str, token_budget: Optional[int] = None) -> str:
        """The packed memory for query, from every session."""
        return self.memory.context(query, token_budget)


#: A LangGraph namespace: a tuple of labels.
Namespace = Tuple[str, ...]

#: The subject of every stored item, and the prefix of their keys.
SUBJECT = "langgraph_store"
KEY_PREFIX = "lg:"


@dataclass
class StoredItem:
    """A stored value: LangGraph's Item fields."""

    namespace: Namespace
    key: str
    value: Dict[str, Any]
    created_at: str
    updated_at: str
    memory_id: str
    score: Optional[float] = None


class MnemonKeyValueStore:
    """Namespaced JSON values as keyed facts in mnemon (see the module doc):
    subject ``langgraph_store``, key ``lg:`` + a digest of the namespace and
    key, value the JSON of {"namespace", "key", "value"}."""

    def __init__(self, client: Client) -> None:
        self.client = client

    @staticmethod
    def _slot(namespace: Namespace, key: str) -> str:
        if not namespace or any(not label for label in namespace) or not key:
            raise ValueError("mnemon: a namespace needs non-empty labels and an item a key: %r %r" % (namespace, key))
        digest = hashlib.sha256(json.dumps([list(namespace), key]).encode("utf-8")).hexdigest()[:32]
        return KEY_PREFIX + digest

    def put(self, namespace: Namespace, key: str, value: Dict[str, Any]) -> None:
        data = json.dumps({"namespace": list(namespace), "key": key, "value": value}, sort_keys=True, separators=(",", ":"), default=str)
        text = "%s %s: %s" % ("/".join(namespace), key, json.dumps(value, sort_keys=True, default=str))
        self.client.remember({"text": text[:60000], "subject": SUBJECT, "key": self._slot(namespace, key), "value": data, "type": "fact"})

    def _versions(self) -> List[Any]:
        try:
            return list(self.client.list_memories(subject=SUBJECT, limit=1000)["memories"])
        except MnemonError as err:
            if err.code == "namespace_not_found":
                return []
            raise

    @staticmethod
    def _item(v: Any) -> Optional[StoredItem]:
        if not str(v.get("key") or "").startswith(KEY_PREFIX):
            return None
        try:
            data = json.loads(v.get("value") or "")
            ns, key, value = tuple(data["namespace"]), data["key"], data["value"]
        except (ValueError, KeyError, TypeError):
            return None
        return StoredItem(ns, key, value, v.get("recorded_at") or "", v.get("updated_at") or "", v.get("memory_id") or "")

    def get(self, namespace: Namespace, key: str) -> Optional[StoredItem]:
        slot = self._slot(namespace, key)
        for v in self._versions():
            if v.get("key") == slot:
                return self._item(v)
        return None

    def delete(self, namespace: Namespace, key: str) -> None:
        it = self.get(namespace, key)
        if it is not None:
            self.client.forget(it.memory_id)

    def search(self, prefix: Namespace, query: Optional[str] = None, limit: int = 10, offset: int = 0) -> List[StoredItem]:
        """Items under the namespace prefix; with a query, ranked by mnemon's
        retrieval (items it does not rank follow, newest first)."""
        items = [it for it in (self._item(v) for v in self._versions()) if it is not None and it.namespace[: len(prefix)] == tuple(prefix)]
        items.sort(key=lambda it: parse_time(it.updated_at), reverse=True)
        if query:
            res = self.client.retrieve({"query": query[:4096], "limit": 100})
            rank = {item["memory_id"]: (i, item.get("score")) for i, item in enumerate(res["items"] or [])}
            for it in items:
                if it.memory_id in rank:
                    it.score = rank[it.memory_id][1]
            items.sort(key=lambda it: rank.get(it.memory_id, (len(rank), None))[0])
        return items[offset : offset + limit]

    def list_namespaces(self, prefix: Namespace = (), max_depth: Optional[int] = None) -> List[Namespace]:
        seen = set()
        for v in self._versions():
            it = self._item(v)
            if it is None or it.namespace[: len(prefix)] != tuple(prefix):
                continue
            seen.add(it.namespace[:max_depth] if max_depth else it.namespace)
        return sorted(seen)


_lg = optional_import("langgraph.store.base", "BaseStore", "GetOp", "Item", "ListNamespacesOp", "PutOp", "SearchItem", "SearchOp")
HAVE_LANGGRAPH = _lg is not None
_StoreBase: Any = _lg[0] if _lg else object


class MnemonStore(_StoreBase):  # type: ignore[misc]
    """A LangGraph BaseStore over MnemonKeyValueStore (needs langgraph)."""

    def __init__(self, client: Client) -> None:
        if not HAVE_LANGGRAPH:
            raise ImportError("mnemon: MnemonStore needs langgraph (pip install langgraph); MnemonKeyValueStore works without it")
        self.kv = MnemonKeyValueStore(client)

    def batch(self, ops: Iterable[Any]) -> List[Any]:
        from datetime import datetime

        assert _lg is not None
        _, GetOp, Item, ListNamespacesOp, PutOp, SearchItem, SearchOp = _lg

        def when(s: str) -> Any:
            return datetime.fromisoformat(s.replace("Z", "+00:00")) if s else datetime.now()

        out: List[Any] = []
        for op in ops:
            if isinstance(op, GetOp):
                it = self.kv.get(op.namespace, op.key)
                out.append(None if it is None else Item(value=it.value, key=it.key, namespace=it.namespace,
                                                        created_at=when(it.created_at), updated_at=when(it.updated_at)))
            elif isinstance(op, PutOp):
                if op.value is None:
                    self.kv.delete(op.namespace, op.key)
                else:
                    self.kv.put(op.namespace, op.key, op.value)
                out.append(None)
            elif isinstance(op, SearchOp):
                found = self.kv.search(op.namespace_prefix, op.query, op.limit, op.offset)
                out.append([SearchItem(namespace=it.namespace, key=it.key, value=it.value, created_at=when(it.created_at),
                                       updated_at=when(it.updated_at), score=it.score) for it in found])
            elif isinstance(op, ListNamespacesOp):
                out.append(self.kv.list_namespaces(max_depth=op.max_depth))
            else:
                raise TypeError("mnemon: unsupported store operation %r" % (op,))
        return out

    async def abatch(self, ops: Iterable[Any]) -> List[Any]:
        return await asyncio.to_thread(self.batch, list(ops))
