"""Append-only event streams with an optimistic concurrency guard and a hash chain.

The store knows no rules: an event is a type name, JSON data and the time it was recorded.
"""

from eventstore.base import (
    DUE,
    GENESIS_HASH,
    MARK,
    Cap,
    CapReached,
    ConcurrencyError,
    EventStore,
    NewEvent,
    StoredEvent,
    StoreError,
    chain_hash,
    due_time,
)
from eventstore.open import StoreConfig, open_store

__all__ = [
    "DUE", "GENESIS_HASH", "MARK", "Cap", "CapReached", "ConcurrencyError", "EventStore",
    "NewEvent", "StoreConfig", "StoreError", "StoredEvent", "chain_hash", "due_time",
    "open_store",
]
