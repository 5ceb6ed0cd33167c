#!/usr/bin/env bash
# WordNet's database (Debian's wordnet-base), from which the readings take synonyms
# ("main" / "primary"). Optional: memfold works without it, on its word tables alone.
# Installs it with apt where this shell may (root on Debian or Ubuntu); else says so.
set -euo pipefail
if [ -f /usr/share/wordnet/index.noun ] || [ -n "${MEMFOLD_WORDNET+x}" ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "setup: installing Debian's wordnet-base (synonyms for the readings)"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    wordnet-base >/dev/null
else
  echo "setup: WordNet is missing (apt-get install wordnet-base): synonyms come from the word tables alone" >&2
fi
