"""An attacker who reads everything public brute-forces what is small, and learns nothing.

Matches are played through the service; at every trick (and after every pass) the log is read
as the spectator and as a seat, exactly as the API serves it, and every hidden value is
attacked: each of the 22,100 possible passes, and each hidden dealt hand wherever its
candidates are few enough to try them all. A candidate is recovered when, put in the value's
place, it reproduces the event's public hash, or when it opens the value's commitment without
a salt. With the salts switched off the very same attack recovers hands and passes, so the
attack is real and it is the salts that stop it.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from random import Random

import pytest

import domain.sealing
from domain.cards import DECK
from domain.events import SeatSpec
from domain.legal import legal_cards
from domain.rules import MoonRule, Rules
from domain.sealing import canonical_json
from domain.state import Status
from domain.views import seats_to_act
from eventstore import chain_hash, open_store
from service import MatchService, decode

PEOPLE = tuple(SeatSpec(n) for n in ("Ann", "Bob", "Cid", "Dee"))
ALL_CARDS = [str(c) for c in sorted(DECK)]  # the order in which events spell cards
PASSES = [list(t) for t in itertools.combinations(ALL_CARDS, 3)]
ORDER = {c: i for i, c in enumerate(ALL_CARDS)}
MOST_HANDS = 20_000  # the hands tried at most per hidden hand
MARK = "\u0000candidate\u0000"


class Attacker:
    """Tries candidates against what one reader can see; counts what it tried and found."""

    def __init__(self) -> None:
        self.tried = 0
        self.found: list[tuple[str, int, str]] = []
        self.done: set[tuple[int, str]] = set()
        self.kinds: set[str] = set()  # the kinds of event attacked

    def attack(self, item: dict, path: str, candidates, once: bool = False) -> None:
        data = item["data"]
        if domain.sealing.value_at(data, path) is not None:
            return  # this reader may see the value: nothing to attack
        if once and (item["version"], path) in self.done:
            return  # a hidden pass reads the same until it is shown: tried already
        self.done.add((item["version"], path))
        self.kinds.add(item["type"])
        sealed = data.get("sealed", {}).get(path)
        template = _with_mark(data, path)
        for candidate in candidates:
            self.tried += 1
            text = canonical_json(candidate)
            guess = template.replace(canonical_json(MARK), text)
            digest = chain_hash(item["prev_hash"], item["version"], item["type"], guess,
                                item["recorded_at"])
            if digest == item["hash"] or (
                    sealed and hashlib.sha256(text.encode()).hexdigest() == sealed):
                self.found.append((item["type"], item["version"], path))
                return


def _with_mark(data: dict, path: str) -> str:
    guess = {k: v for k, v in data.items() if k != "salts"}
    guess = domain.sealing.with_hidden(guess, [])
    guess = domain.sealing.put_at(guess, path, MARK)
    return canonical_json(guess)


def attack_log(game: MatchService, match_id: str, viewer: int | None, attacker: Attacker) -> None:
    items, now = game.events(match_id, viewer, 0, 1000)
    truth = [decode(e) for e in game.store.read(match_id)]
    dealt_at = {}
    for item in items:
        if item["type"] == "RoundDealt":
            dealt_at[item["data"]["round"]] = item
        if item["type"] == "PassChosen":
            attacker.attack(item, "cards", PASSES, once=True)
    rnd = now.round
    if rnd is None or rnd.number not in dealt_at:
        return
    item = dealt_at[rnd.number]
    dealt = next(e for e in truth if type(e).__name__ == "RoundDealt" and e.round == rnd.number)
    seen = {str(p.card) for t in rnd.taken for p in t.plays} | \
        {str(p.card) for p in rnd.trick.plays}
    if viewer is not None:
        seen |= {str(c) for c in dealt.hands[viewer]}
        seen |= {str(c) for c in rnd.received[viewer] or ()}
    for seat in range(4):
        hand = {str(c) for c in dealt.hands[seat]}
        # Stronger than any real attacker: it is told which seen cards were in the hand.
        known = sorted(hand & seen)
        pool = sorted(set(ALL_CARDS) - seen)
        need = 13 - len(known)
        if math.comb(len(pool), need) > MOST_HANDS:
            continue
        candidates = (sorted(known + list(rest), key=ORDER.__getitem__)
                      for rest in itertools.combinations(pool, need))
        attacker.attack(item, f"hands.{seat}", candidates)


def play_and_attack(game: MatchService, rules: Rules, seed: int) -> dict:
    match = game.create(PEOPLE, rules).match
    rng = Random(seed)
    attackers = {None: Attacker(), 2: Attacker()}
    while True:
        state = game.load(match.id)
        if state.status is Status.FINISHED:
            break
        seat = seats_to_act(state)[0]
        if state.status is Status.PASSING:
            game.pass_cards(match.id, seat, rng.sample(sorted(state.round.hands[seat]), 3))
        elif state.status is Status.PLAYING:
            game.play_card(match.id, seat,
                           rng.choice(sorted(legal_cards(state.round, state.rules, seat))))
        else:
            game.choose_moon(match.id, seat, MoonRule.ADD_TO_OTHERS)
        after = game.load(match.id)
        trick_done = after.round and len(after.round.trick.plays) == 0
        if state.status is Status.PASSING or trick_done:
            for viewer, attacker in attackers.items():
                attack_log(game, match.id, viewer, attacker)
    return attackers


@pytest.fixture
def game(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    yield MatchService(store)
    store.close()


def test_no_pass_and_no_hidden_hand_is_recovered_from_hashes_or_commitments(game):
    attackers = play_and_attack(game, Rules(end_score=26), seed=3)
    for viewer, attacker in attackers.items():
        assert attacker.tried > 22_100 * 4, (viewer, attacker.tried)
        assert attacker.kinds == {"PassChosen", "RoundDealt"}, viewer
        assert attacker.found == [], viewer


def test_without_salts_the_same_attack_recovers_passes_and_hands(game, monkeypatch):
    monkeypatch.setattr(domain.sealing, "salt_for", lambda seed, label: b"")
    attackers = play_and_attack(game, Rules(end_score=26), seed=3)
    for viewer, attacker in attackers.items():
        kinds = {kind for kind, _, _ in attacker.found}
        assert kinds == {"PassChosen", "RoundDealt"}, (viewer, attacker.found)
