"""memfold as a LangGraph store (``pip install 'memfold[langgraph]'``; docs/langgraph.md).

    from memfold import Memory
    from memfold.integrations.langgraph import MemfoldStore

    store = MemfoldStore(Memory("agent.db"))

One module a job: ``store`` (``MemfoldStore``, LangGraph's ``BaseStore``), ``mapping``
(namespaces to scopes, items to memories), ``fields`` (what an item is indexed on),
``search`` (LangGraph's scores over memfold's hybrid candidates), ``filters``, ``ttl``
(LangGraph's time to live as memfold's expiry), ``config`` (the thresholds) and
``embed`` (a LangChain embeddings object as memfold's embedder).
"""

from memfold.integrations.langgraph.config import MemfoldStoreConfig
from memfold.integrations.langgraph.embed import LangChainEmbedder
from memfold.integrations.langgraph.store import MemfoldStore

__all__ = ["LangChainEmbedder", "MemfoldStore", "MemfoldStoreConfig"]
