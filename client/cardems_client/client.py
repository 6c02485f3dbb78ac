"""The service over HTTP: one method per operation, each returning a typed result.

    with Client("http://127.0.0.1:8000", token=token) as seat:
        view = seat.match(match_id)
        view = seat.play(match_id, view.you.legal[0], if_match=view.version)

Every POST carries a fresh `Idempotency-Key`, kept across its own retries. Network errors, 429
and 503 are retried within the policy's patience, waiting as `Retry-After` asks. Any other
problem document is raised as its exception (`errors.py`) with its `code`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

import httpx

from cardems_client.errors import GaveUp, Problem, problem_from
from cardems_client.events import follow
from cardems_client.models import (
    Analysis,
    Card,
    CreatedMatch,
    Event,
    EventPage,
    Health,
    IntegrityReport,
    MatchView,
    Model,
    ReplayView,
    Seat,
    TrickAudit,
)
from cardems_client.retry import RetryPolicy, retry_after_seconds

M = TypeVar("M", bound=Model)
USER_AGENT = "cardems-client/0.1"


@dataclass(frozen=True)
class Retrying:
    """What the kit tells `on_retry` before it waits and asks again."""

    method: str
    path: str
    attempt: int
    wait: float
    reason: str  # an HTTP status, or the network error's name
    retry_after: float | None = None


class Client:
    """One caller of one service: a seat when given its token, a spectator otherwise."""

    def __init__(self, base_url: str, token: str | None = None, *,
                 retry: RetryPolicy | None = None, timeout: float = 30.0,
                 on_retry: Callable[[Retrying], None] | None = None,
                 http: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self._own_http = http is None
        self.http = http or httpx.Client(base_url=self.base_url, timeout=timeout,
                                         headers={"User-Agent": USER_AGENT})

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._own_http:
            self.http.close()

    def seat(self, token: str) -> Client:
        """A client for another seat's token that shares this one's connections."""
        return Client(self.base_url, token, retry=self.retry, on_retry=self.on_retry,
                      http=self.http)

    # -- matches --------------------------------------------------------------------------

    def create_match(self, seats: Sequence[Mapping[str, Any] | str], *,
                     rules: Mapping[str, Any] | None = None, client_seed: str | None = None,
                     decks: Sequence[Sequence[Card]] | None = None) -> CreatedMatch:
        """A new match. A seat is `{"name": ...}` for a person, with `"bot": level` for one
        of the service's bots; a bare string is a person's name."""
        body: dict[str, Any] = {"seats": [{"name": s} if isinstance(s, str) else dict(s)
                                          for s in seats]}
        if rules:
            body["rules"] = dict(rules)
        if client_seed is not None:
            body["client_seed"] = client_seed
        if decks is not None:
            body["decks"] = [list(deck) for deck in decks]
        return CreatedMatch.from_json(self._call("POST", "/v1/matches", body=body))

    def match(self, match_id: str) -> MatchView:
        """The match now, as this caller may see it."""
        return self._get(MatchView, _match(match_id))

    def pass_cards(self, match_id: str, cards: Sequence[Card], *,
                   if_match: int | None = None) -> MatchView:
        return self._move(match_id, "passes", {"cards": list(cards)}, if_match)

    def play(self, match_id: str, card: Card, *, if_match: int | None = None) -> MatchView:
        return self._move(match_id, "plays", {"card": card}, if_match)

    def choose_moon(self, match_id: str, choice: str, *,
                    if_match: int | None = None) -> MatchView:
        """`add_to_others` or `subtract_from_self`, for a shooter under `shooter_choice`."""
        return self._move(match_id, "moon", {"choice": choice}, if_match)

    def come_back(self, match_id: str, *, if_match: int | None = None) -> MatchView:
        """Under a turn clock, a seat that is away is back (NotNow `not_away` otherwise)."""
        return self._move(match_id, "back", {}, if_match)

    # -- the log ----------------------------------------------------------------------------

    def events(self, match_id: str, after: int = 0, limit: int | None = None) -> EventPage:
        """One page of the log, oldest first, after version `after`."""
        params: dict[str, int] = {"after": after}
        if limit is not None:
            params["limit"] = limit
        return self._get(EventPage, _match(match_id) + "/events", params)

    def all_events(self, match_id: str, after: int = 0) -> Iterator[Event]:
        """Every event after `after` that the log holds now, page after page."""
        while True:
            page = self.events(match_id, after)
            yield from page.events
            if not page.next or not page.events:
                return
            after = page.events[-1].version

    def follow(self, match_id: str, after: int = 0) -> Iterator[Event]:
        """The match's events as they happen, from the one after `after`, until it ends. A
        dropped stream, a restarted server or a 503 is resumed from the last event seen."""
        return follow(self, match_id, after)

    def replay(self, match_id: str, version: int) -> ReplayView:
        return self._get(ReplayView, f"{_match(match_id)}/replay/{version}")

    def audit(self, match_id: str, round_number: int, trick: int) -> TrickAudit:
        return self._get(TrickAudit,
                         f"{_match(match_id)}/rounds/{round_number}/tricks/{trick}")

    def verify(self, match_id: str) -> IntegrityReport:
        return self._get(IntegrityReport, _match(match_id) + "/verify")

    def ask_analysis(self, match_id: str) -> Analysis:
        """Ask for the analysis of every round that is over; asking again changes nothing
        until more rounds are over. The analysis as it stands."""
        return Analysis.from_json(self._call("POST", _match(match_id) + "/analysis", body={}))

    def analysis(self, match_id: str) -> Analysis:
        """The analysis so far (NotFound until someone has asked for it)."""
        return self._get(Analysis, _match(match_id) + "/analysis")

    def analysed(self, match_id: str, every: float = 1.0, patience: float = 600.0) -> Analysis:
        """Ask for the analysis and wait until it is done."""
        deadline = time.monotonic() + patience
        report = self.ask_analysis(match_id)
        while not report.done:
            if time.monotonic() > deadline:
                raise GaveUp(f"the analysis of {match_id} was not done in {patience:.0f} s")
            time.sleep(every)
            report = self.analysis(match_id)
        return report

    def health(self) -> Health:
        return self._get(Health, "/healthz")

    def link(self, match_id: str, token: str | None = None) -> str:
        """The web table's address for the match, as a seat when given its token."""
        page = f"{self.base_url}/m/{quote(match_id, safe='')}"
        return f"{page}#token={quote(token, safe='')}" if token else page

    # -- the wire ---------------------------------------------------------------------------

    def _get(self, kind: type[M], path: str, params: Mapping[str, Any] | None = None) -> M:
        return kind.from_json(self._call("GET", path, params=params))

    def _move(self, match_id: str, what: str, body: dict[str, Any],
              if_match: int | None) -> MatchView:
        headers = {"If-Match": f'"{if_match}"'} if if_match is not None else {}
        reply = self._call("POST", f"{_match(match_id)}/{what}", body=body, headers=headers)
        return MatchView.from_json(reply)

    def headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return {**headers, **(extra or {})}

    def _call(self, method: str, path: str, *, body: Any = None,
              params: Mapping[str, Any] | None = None,
              headers: Mapping[str, str] | None = None) -> Any:
        sent = self.headers(headers)
        if method == "POST":
            # One key for the request and all its retries: applied once, however often sent.
            sent["Idempotency-Key"] = str(uuid.uuid4())
        started, attempt = time.monotonic(), 0
        while True:
            attempt += 1
            try:
                response = self.http.request(method, path, json=body, params=params,
                                             headers=sent)
            except httpx.TransportError as error:
                self.pause(method, path, attempt, started, type(error).__name__, None, error)
                continue
            if response.status_code < 400:
                return response.json()
            retry_after = retry_after_seconds(response.headers.get("Retry-After"))
            problem = problem_from(response.status_code, _body(response), retry_after)
            if response.status_code not in self.retry.statuses:
                raise problem
            self.pause(method, path, attempt, started, str(response.status_code), retry_after,
                       problem)

    def pause(self, method: str, path: str, attempt: int, started: float, reason: str,
              retry_after: float | None, failure: Exception) -> None:
        """Wait before the next attempt, or raise once the policy's patience is spent."""
        wait = self.retry.wait(attempt, retry_after)
        if time.monotonic() - started + wait > self.retry.patience:
            if isinstance(failure, Problem):
                raise failure
            raise GaveUp(f"{method} {path}: {reason} for {attempt} attempts") from failure
        if self.on_retry:
            self.on_retry(Retrying(method, path, attempt, wait, reason, retry_after))
        time.sleep(wait)


def _match(match_id: str) -> str:
    return f"/v1/matches/{quote(match_id, safe='')}"


def _body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return response.text


__all__ = ["Client", "Retrying", "Seat"]
