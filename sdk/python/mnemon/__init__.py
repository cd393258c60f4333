"""mnemon: persistent memory for AI agents, from Python.

    import mnemon

    client = mnemon.Client("http://127.0.0.1:7077")   # api_key: $MNEMON_API_KEY
    client.remember({"text": "I use pnpm for JavaScript projects."})
    pack = client.retrieve({"query": "which package manager?", "token_budget": 500})
    print(pack["context"])

Client and AsyncClient have one typed method per API operation; the request
and response TypedDicts and one exception class per problem code are
generated from mnemon's OpenAPI document (mnemon/_generated.py). Agent and
Client.task wrap an agent's task in the PreTask/PostTask calls.
"""
from . import _generated
from ._generated import *  # noqa: F401,F403  (the API's TypedDicts and problem exceptions)
from .agent import Agent, AsyncAgent, AsyncTask, Pack, PostTaskResult, RecordedEvent, Task, TaskResult
from .client import AsyncClient, Client
from .errors import MnemonError, TransportError

__version__ = "0.1.0"

__all__ = [
    "Client",
    "AsyncClient",
    "Agent",
    "AsyncAgent",
    "Task",
    "AsyncTask",
    "Pack",
    "TaskResult",
    "PostTaskResult",
    "RecordedEvent",
    "MnemonError",
    "TransportError",
]
__all__ += _generated.__all__
