"""Adapters for agent frameworks: a LangGraph store (``memfold.integrations.langgraph``,
needs ``memfold[langgraph]``) and tool schemas for function calling
(``memfold.integrations.tools``)."""
