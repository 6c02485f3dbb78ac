"""Put a service together: its store, and the dispatcher its bot turns go to, as the edge
that builds it chooses (`workers.choice` names the dispatchers that exist)."""

from __future__ import annotations

from collections.abc import Mapping

from eventstore import StoreConfig, StoreError, open_store
from eventstore.open import DEFAULT_STORE
from service import Dispatch, MatchService
from service.fair_use import FairUse
from service.matches import ensure_format
from service.waiting import carry_over

# The store's configuration, for the edges: they read the URL once and pass this on.
__all__ = ["DEFAULT_STORE", "Dispatch", "StoreConfig", "StoreError", "build_service",
           "store_problem"]


def build_service(store: StoreConfig | str, dispatch: Dispatch | None = None,
                  pace: Mapping[str, float] | None = None,
                  fair: FairUse | None = None, recover: bool = True) -> MatchService:
    """A service on `store`, its bot turns given to what `dispatch` picks
    (the edges choose it: `workers.choice`); none, and the turns wait in the schedule.

    With a dispatcher it sweeps the schedule for lost turns. `recover`: at first it hands on
    every turn owed, as the one process that makes them and holds none yet, and it hands on
    lost analyses; off where other processes may hold turns (RQ workers), which hand on only
    the overdue turns and leave the analyses to the serving processes."""
    service = MatchService(open_store(store), dispatch, pace=pace, fair=fair)
    carry_over(service.store)
    service.sweeper.start(turns=service.dispatcher is not None, alone=recover)
    return service


def store_problem(config: StoreConfig) -> str | None:
    """Why the store cannot be served (an unreachable backend, an old event format), or None
    when it can: checked once before any worker starts."""
    try:
        store = open_store(config)
    except StoreError as exc:
        return str(exc)
    try:
        ensure_format(store)
    except StoreError as exc:
        return str(exc)
    finally:
        store.close()
    return None
