"""The guarantees part of docs/reliability.md: what holds, what does not, and the command
that checks each claim. Hand-written; the figures in it name the command that made them.
The measured sections that follow it are generated from one run (reliability/docs.py)."""

GUARANTEES = """\
## What is guaranteed

Each claim names the tests or the command that check it; the tests run in CI.

### Tenants never touch each other

- A key reads and changes only the memories, log rows, review items and conversations of
  its own scope, on every REST route and every MCP tool, for read, write and admin keys
  bound to a user and for keys bound to an agent. Another scope's resource answers as an
  unknown id (404, nothing written, none of its text quoted).
- A log row never spans two scopes: the lifecycle tick and `delete_all` write one row per
  scope (user, agent, session). A cascaded undo is planned whole before anything is
  written; if it would reach a row outside the key's scope it is refused (409) and the
  refusal does not name that row. `memory_history` over MCP shows the rows REST shows.
- Not covered: an admin key bound to no user sees and may undo every scope, as does the
  Python API (no key). A row that an older memfold wrote over several scopes stays in the
  file: scoped keys do not see it and cannot undo through it.
- Check: `pytest tests/server/test_tenant_rows.py tests/server/test_rest_isolation.py`
  (every route and tool on one's own rows, with rows written for several tenants at once:
  175 cases; 10 failed before the fix).

### An acknowledged write is never lost or undone behind the user's back

- Killed writers and workers lose no acknowledged add (sections 1 and 2 below).
- A memory's version never repeats. An undo restores the content under a new version, and
  an undo with its whole cascade runs in one transaction under the store's writer lock.
  A consolidation decision planned on an earlier state meets a version conflict and is
  planned again on what is there now; it never overwrites an edit made since.
- Check: `pytest tests/consolidation/test_versions_never_repeat.py
  tests/consolidation/test_job_conflicts.py`.

### Retried writes are done once

- A REST write sent again with the same `Idempotency-Key` header (or `Memory.add(...,
  idempotency_key=...)`) is answered from the stored response of the first, with
  `Idempotent-Replayed: true`, and writes nothing. The first request claims the key in the
  store in one transaction under the writer lock, so among any number of server processes
  on one store exactly one runs; its response is stored before it is sent. Another request
  under the same key is 422, a retry while the first runs 409. Keys belong to the API key
  (per scope in Python), survive restarts, and expire after `server.idempotency_ttl_s`
  (a day).
- Not covered: the write and its stored response are two transactions. A process killed
  between them leaves the key claimed: retries get 409 until
  `server.idempotency_claim_ttl_s` (a day) has passed, and then run again. A write sent
  without a key is not deduplicated.
- Check: `pytest tests/server/test_rest_idempotency.py tests/api/test_add_idempotency.py
  tests/store_contract/test_idempotency_keys.py` (SQLite and PostgreSQL).

### Two writers never crash on a lock

- Every write transaction on SQLite begins as a writer (`BEGIN IMMEDIATE`) and waits up to
  `store.busy_timeout_ms`, so no read is turned into a write. The conflicts SQLite answers
  at once without waiting (two processes switching a new file to WAL together) are tried
  again (`store.busy_retries`, waits doubling from `busy_retry_wait_ms` to
  `busy_retry_max_wait_ms`, never past the busy timeout), then raised as
  `memfold.StoreBusy`: transient, nothing written, safe to retry. A caller never sees
  sqlite3's own "database is locked".
- Measured: two processes adding similar memories to one new file,
  `tests/consolidation/test_gates_and_faults.py::test_two_processes_adding_similar_memories`,
  passed 50 runs of 50 with two CPU-burning processes beside it (it failed 2 of 3 CI runs
  before); opening a new file from three processes at once failed 0 times in 300 (14
  before). Command: `for i in $(seq 50); do pytest -x
  "tests/consolidation/test_gates_and_faults.py::test_two_processes_adding_similar_memories[sqlite]";
  done` with `python3 -c "while 1: pass" &` started twice.
- Check: `pytest tests/core/test_sqlite_busy.py` (a trace of a whole add, consolidate,
  update and flush asserts that every transaction begins IMMEDIATE).

### Bad input changes nothing

- Refused with a memfold error on every surface: the Python API (`InvalidInput`), REST
  (422 naming the field, never 5xx), MCP (a tool error) and the CLI (exit 2, one `error:`
  line). Metadata nests at most `store.max_metadata_depth` levels (32) and holds at most
  `store.max_metadata_bytes` (64 KiB) as JSON, checked without recursion. Ids, offsets
  and limits fit in 64 bits and limits are at least 1; lone surrogates and NUL are refused
  in ids, texts, reasons, metadata and filters; a `ttl` ends before the year 9999. A memory
  older code stored with deeper metadata no longer breaks its scope: its metadata is shown
  cut at 100 levels.
- Measured (section 5 below, and a probe of 1,608 Python calls and 225 REST requests on
  2026-11-27): raw exceptions 207 -> 0, REST 5xx 56 -> 0.
- Check: `pytest tests/core/test_bad_input.py tests/server/test_rest_bad_input.py
  tests/cli/test_cli_bad_input.py`.

### Secrets do not reach an LLM

- Before any text is sent to an LLM, the secrets memfold recognises are replaced by
  placeholders (`[[SECRET_1]]`) and restored in what is written back; a reply naming a
  placeholder never sent is refused. Recognised: provider API keys and tokens, JWTs,
  private keys, bearer tokens, passwords in URLs; passwords, passphrases, PINs and door
  codes stated in English or French ("the password for the VPN is hunter2", "email pw is
  sunflower1987", "le mot de passe du wifi est soleil2024") whatever their entropy; "user
  / password" pairs named by a login word or a service ("router admin / Kangaroo!2024");
  Luhn-valid card numbers, US social security numbers, UK National Insurance numbers and
  IBANs with a valid checksum. An extract holding a secret is not stored.
- Not covered: detection is by patterns and checksums. A secret stated without a keyword
  or verb, in another language, a weak pair ("admin / admin"), a passphrase starting with
  an article, or a lower-case IBAN is sent as written. The stored memory keeps the real
  text: protect the database as a store of credentials.
- Check: `pytest tests/llm/test_secrets.py tests/llm/test_secrets_words_and_numbers.py
  tests/llm_engine/test_llm_secrets_stated.py` (30 kinds, all masked and restored).

### Forgetting

- `forget` removes the text, vector, keyword entries, its snapshots in every log row,
  stored REST responses quoting it, queue pairs, jobs, links and feedback, and what holds
  its words; memfold's own Python log lines never quote a memory, message or extract (they
  say why something was refused, not what it said). On SQLite the WAL is checkpointed and
  truncated and freed pages are zeroed (`secure_delete`), so no byte of the file holds it.
  A bulk delete or tick that also touched other memories can still be undone for those.
- On PostgreSQL, `forget(..., vacuum=True)` rewrites the tables (`VACUUM FULL`), then,
  where the role may (a superuser, or `pg_checkpoint` and `EXECUTE` on `pg_switch_wal`),
  switches the write-ahead log until every segment file that held the text has been
  written over (`store.forget_wal_switches`, at most 32 switches of up to 16 MB each).
  Measured with `python benchmarks/probe_pg_forget_wal.py` (PostgreSQL 16 from pgserver,
  2026-11-27): files of the data folder holding the text, 1 after the add, 0 after
  `forget(..., vacuum=True)`; with `forget_wal_switches = 0`, one WAL segment still holds
  it.
- Not covered: PostgreSQL's WAL archive (`archive_mode`), streaming replicas and base
  backups keep their copies, and so does a server whose role may not switch WAL until it
  recycles the segment itself. Without `vacuum=True`, PostgreSQL keeps the deleted rows
  until its own vacuum. Logs of your application, of the LLM provider and of any proxy are
  outside memfold.
- Check: `pytest tests/erase tests/conversation/test_extract.py
  tests/server/test_rest_idempotency.py -k "forget or log_lines or erase"`.

### Embedding memory is bounded

- The local embedder bounds each model run by padded tokens, not only by count: a batch
  holds at most `embed.batch_size` (64) texts and `embed.max_batch_tokens` (1024) padded
  tokens (its texts times its longest text, after the cut at `embed.max_tokens`, 256),
  and at most `embed.threads` (2) runs go at once, so a process never has more than 2,048
  tokens in a model run. Short texts (up to 16 tokens) still go 64 to a batch. Vectors
  are unchanged (largest difference 0.0 against the previous code and against embedding
  one text at a time, on 612 long and 4,860 mixed texts).
- Measured with `python benchmarks/bench_embed_memory.py --budgets 1024,16384 --landed
  <src of the previous code> --rounds 3 --repeat 3` (2026-11-27, 2 cores under load 4-7):
  embedding the 612 longest BEAM dev messages in one call, the whole process (interpreter,
  tokenizer and model, about 0.32 GB, included) peaked at 574-583 MB, against 5,576-5,900
  MB before in batches of 64. 2,000 short texts: 304 a second against 265, same sitting.
- Not covered: an OpenAI-compatible embedding endpoint's memory is the server's; the
  bound applies to `embed.provider = "local"`.
"""
