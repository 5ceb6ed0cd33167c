"""How two texts word the same thing: word lists (lexicon), concepts, the subject
phrase, paraphrase alignment and elaboration ("the same and a little more").
Pure functions, no I/O."""
