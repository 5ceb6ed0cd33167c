"""The lifecycle tick (seed 004): retention, cold tier, TTL, compression."""
