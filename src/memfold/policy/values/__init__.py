"""Values and the facts that state them: reading value slots, a new value for an
attribute (value_update), a new value for one fact (fact_update), and a message
split into its value facts (fact_split). Pure functions, no I/O."""
