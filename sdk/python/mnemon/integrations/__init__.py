"""Adapters that give agent frameworks mnemon as their memory.

Each module is optional and imports its framework only when its framework
class is used; the framework-free parts (message conversion, the calls to
mnemon) work, and are tested, without the framework installed:

- ``mnemon.integrations.openai_agents``: ``MnemonSession``, the OpenAI Agents
  SDK session interface (get_items / add_items / pop_item / clear_session).
- ``mnemon.integrations.langchain``: ``MnemonChatMessageHistory`` (LangChain
  chat history) and ``MnemonStore`` (a LangGraph long-term store).
- ``mnemon.integrations.llamaindex``: ``MnemonMemoryBlock``, a LlamaIndex
  memory block.
"""
