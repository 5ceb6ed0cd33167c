"""Values and the facts that state them: reading value slots, and a message split into
its value facts (fact_split). Pure functions, no I/O."""
