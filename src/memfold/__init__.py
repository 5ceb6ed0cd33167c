"""memfold: long-term memory for LLM agents that consolidates itself safely."""
