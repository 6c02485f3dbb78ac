"""The forked search repeats a search whose choice follows where its memory lands, the
trait that keeps OpenSpiel's IS-MCTS from repeating in one process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.forked_search import ForkedSearch


class Line:
    """A toy game: a state is the actions taken so far."""

    def __init__(self) -> None:
        self.taken: list[int] = []

    def new_initial_state(self) -> Line:
        return Line()

    def apply_action(self, action: int) -> None:
        self.taken.append(action)


class AddressBot:
    """Chooses by the address of fresh objects, as a hash table's order does."""

    def __init__(self, seed: int) -> None:
        if seed < 0:
            raise ValueError("no bot for a negative seed")
        self.seed = seed

    def step(self, state: Line) -> int:
        fresh = [object() for _ in range(self.seed % 5 + len(state.taken) + 1)]
        return id(fresh[-1]) % 1000


@pytest.fixture()
def searches() -> Iterator[ForkedSearch]:
    forked = ForkedSearch(Line(), AddressBot, patience=60)  # fail, not hang, if it breaks
    yield forked
    forked.close()


def test_a_seed_and_a_state_give_one_search_whatever_came_between(
        searches: ForkedSearch) -> None:
    first, _ = searches.search(7, [3, 1, 4], steps=3)
    held = []
    for churn in range(1, 6):
        held.append([object() for _ in range(churn * 997)])  # the caller's memory moves on
        searches.search(churn, [churn] * churn)
        again, _ = searches.search(7, [3, 1, 4], steps=3)
        assert again == first


def test_a_failed_search_is_reported_and_the_next_one_answers(
        searches: ForkedSearch) -> None:
    with pytest.raises(RuntimeError, match="failed"):
        searches.search(-1, [])
    actions, seconds = searches.search(2, [9])
    assert len(actions) == 1 and seconds >= 0


def test_a_request_too_long_is_refused(searches: ForkedSearch) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        searches.search(1, list(range(300)))
