"""Put a service together: its store, and the dispatcher its bot turns go to, as the edge
that builds it chooses (`workers.choice` names the dispatchers that exist)."""

from __future__ import annotations

from collections.abc import Mapping

from eventstore import StoreConfig, StoreError, open_store
from eventstore.open import DEFAULT_STORE
from service import Dispatch, MatchService
from service.fair_use import FairUse
from service.matches import ensure_format

# The store's configuration, for the edges: they read the URL once and pass this on.
__all__ = ["DEFAULT_STORE", "Dispatch", "StoreConfig", "StoreError", "build_service",
           "store_problem"]


def build_service(store: StoreConfig | str, dispatch: Dispatch | None = None,
                  pace: Mapping[str, float] | None = None,
                  fair: FairUse | None = None, recover: bool = True) -> MatchService:
    """A service on `store`, its bot turns given to what `dispatch` picks
    (the edges choose it: `workers.choice`); none, and the turns wait in the store's marks.
    `recover`: hand on the bot turns nobody is making (off in RQ workers, which sweep their
    own queue's)."""
    service = MatchService(open_store(store), dispatch, pace=pace, fair=fair)
    # RQ workers sweep the turns pending in their queue. A turn that never became pending (its
    # hand-off failed while the store's Redis failed over) is found here, from the match's own
    # mark, once it is overdue; queuing it twice is harmless (one job id per turn).
    service.sweeper.start(turns=recover and service.dispatcher is not None)
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
