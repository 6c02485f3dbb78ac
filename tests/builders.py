"""Build matches for tests: given events, when a command, then events or an error."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from domain.bots.autoplay import play_out
from domain.bots.levels import policy_named
from domain.cards import DECK, Card, parse_card
from domain.commands import ChooseMoon, CreateMatch, PassCards, PlayCard, Secret
from domain.decide import decide
from domain.events import Event, MatchCreated, RoundDealt, SeatSpec
from domain.evolve import fold
from domain.passing import pass_direction
from domain.rules import MoonRule, Rules
from domain.shuffle import seed_commitment
from domain.state import Match

SEED = bytes(range(32))
SECRET = Secret(SEED)
NOW = "2026-12-02T12:00:00Z"
PEOPLE = tuple(SeatSpec(n) for n in ("Ann", "Bob", "Cid", "Dee"))


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in text.split())


def hands(*given: str) -> tuple[tuple[Card, ...], ...]:
    """Four hands: the ones spelled out, and the last seats filled from the rest of the deck."""
    taken = [cards(h) for h in given]
    used = {c for h in taken for c in h}
    rest = [c for c in DECK if c not in used]
    while len(taken) < 4:
        taken.append(tuple(rest[:13]))
        rest = rest[13:]
    assert sorted(c.index for h in taken for c in h) == list(range(52)), "not a full deal"
    return tuple(tuple(sorted(h)) for h in taken)


def deck_for(deal: Sequence[Sequence[Card]], dealer: int = 0) -> tuple[Card, ...]:
    """The deck that deals `deal` from `dealer`: card i goes to seat dealer + 1 + i."""
    out: list[Card] = []
    for i in range(52):
        out.append(deal[(dealer + 1 + i) % 4][i // 4])
    return tuple(out)


def created(rules: Rules | None = None) -> MatchCreated:
    return MatchCreated("m1", rules or Rules(), PEOPLE, "", seed_commitment(SEED), 0, NOW)


def given(*events: Event) -> Match:
    state = fold(events)
    assert state is not None
    return state


def hold_round(deal: Sequence[Sequence[Card]], rules: Rules | None = None,
               number: int = 4) -> Match:
    """A match in a round that does not pass, with the deal given."""
    dealer = ((rules or Rules()).first_dealer + number - 1) % 4
    dealt = RoundDealt(number, dealer, pass_direction(number), tuple(tuple(h) for h in deal))
    return given(created(rules), dealt)


def then(state: Match, command: object) -> tuple[Match, list[Event]]:
    events = decide(state, command)  # type: ignore[arg-type]
    after = fold(events, state)
    assert after is not None
    return after, events


def play(state: Match, seat: int, card: str) -> Match:
    return then(state, PlayCard(seat, parse_card(card), SECRET))[0]


def pass_cards(state: Match, seat: int, text: str) -> Match:
    return then(state, PassCards(seat, cards(text), SECRET))[0]


def choose_moon(state: Match, seat: int, choice: MoonRule) -> Match:
    return then(state, ChooseMoon(seat, choice, SECRET))[0]


def create_command(rules: Rules | None = None, decks: tuple = (), seats=PEOPLE,
                   seed: bytes = SEED, client_seed: str = "") -> CreateMatch:
    return CreateMatch("m1", tuple(seats), rules or Rules(), client_seed, Secret(seed, decks), NOW)


def random_match(seed: int, rules: Rules | None = None, bots: Sequence[str] = ("random",) * 4,
                 ) -> tuple[Match, list[Event], CreateMatch]:
    rng = Random(seed)
    command = create_command(rules, seed=rng.randbytes(32), client_seed=str(seed))
    state, events = play_out(command, [policy_named(b) for b in bots], rng)
    return state, events, command


# One seat holds every club, so it leads and takes all thirteen tricks: the moon and the sun.
SUIT_PER_SEAT = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)


def play_lowest_until_round_ends(state: Match) -> tuple[Match, list[Event]]:
    """Each seat on turn plays its lowest legal card until the round is played out."""
    from domain.legal import legal_cards
    from domain.state import Status

    number = state.round.number
    events: list[Event] = []
    while state.status is Status.PLAYING and state.round.number == number:
        seat = state.round.turn
        card = min(legal_cards(state.round, state.rules, seat))
        state, new = then(state, PlayCard(seat, card, SECRET))
        events += new
    return state, events


# North leads 2C, East wins trick 1 with AC holding hearts and diamonds: hearts unbroken.
UNBROKEN = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC TD",
    "AC 2H 3H 4H 5H 2D 3D 4D 5D 6D 7D 8D 9D",
    "QS KS AS 6H 7H 8H 9H TH JH QH KH AH JD",
)


def after(deal: Sequence[Sequence[Card]], plays: Sequence[tuple[int, str]]) -> Match:
    """A hold round with `deal`, after the given plays."""
    state = hold_round(deal)
    for seat, card in plays:
        state = play(state, seat, card)
    return state
