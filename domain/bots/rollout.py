"""Play a round to its end fast, every seat by rules of thumb: the expert's simulations.

Thousands of these run per decision, so a card is its index (suit = index // 13, and within a
suit the index orders the ranks) and a hand is four ascending lists, one per suit. Each
simulated seat plays the heuristic bot's rules of thumb from what a real player knows: its
own hand, the table, the voids shown, and which cards are still out (the others' hands are
read only as one pool, never as who holds what). A seat the table marks as searching plays
instead by a one-ply search over the simulated hands (`searched_play`), and a seat it marks
as noisy plays a legal card at random when the caller's draw for that play says so. The
rules are the match's own: the plays are legal as `domain.legal` has it (first trick, hearts
broken, the queen breaking hearts; tests replay simulated rounds through `decide` to prove
it), and the score is `domain.scoring`'s.
"""

from __future__ import annotations

from bisect import bisect
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from domain.bots.heuristic import (
    FLUSH_QUEEN,
    HEART_LEAD,
    QUEEN_LEAD,
    SURE_WIN,
    UNDER_QUEEN,
    VOID_SEEN,
)
from domain.bots.reading import MOON_WATCH
from domain.cards import JACK_OF_DIAMONDS, QUEEN_OF_SPADES, TWO_OF_CLUBS, Card, Suit
from domain.rules import Rules
from domain.scoring import round_scores

CLUBS, DIAMONDS, SPADES, HEARTS = Suit.CLUBS, Suit.DIAMONDS, Suit.SPADES, Suit.HEARTS
QUEEN = QUEEN_OF_SPADES.index
TWO_CLUBS = TWO_OF_CLUBS.index
JACK = JACK_OF_DIAMONDS.index
FIRST_HEART = HEARTS * 13

Hand = list[list[int]]  # four ascending lists of card indexes, by suit
# A model of how a seat plays: the card it plays on a table (left as it was).
KinPlayer = Callable[[Rules, "Table", int], int]
# How many of its cards could lose a trick when a seat holding every point so far runs at
# the moon: a rules-of-thumb player's one, and a bolder shooter's (`Table.bold`).
MOON_LOSERS = 1
BOLD_LOSERS = 2
# How often a seat of `Table.noisy` plays a legal card at random instead of by rules of thumb.
SLIP = 0.2


@dataclass(slots=True)
class Table:
    """Where a round stands, in the simulation's terms; `rollout` plays it out in place.
    There are as many seats as hands."""

    hands: list[Hand]
    leader: int
    plays: list[tuple[int, int]]  # (seat, card) of the trick in progress
    points: list[int]
    won: list[int]  # tricks taken per seat
    jack: int | None  # the seat that took the jack of diamonds
    broken: bool
    queen_played: bool
    voids: list[int] | None = None  # per seat, a bit per suit it has shown it lacks
    kin: int = 0  # a bit per seat that plays by a one-ply search rather than rules of thumb
    kin_until: int = 52  # ... while fewer tricks than this have been taken (by default, all)
    kin_player: KinPlayer | None = None  # how a searching seat plays, if not by that search
    bold: int = 0  # a bit per seat that runs at the moon with BOLD_LOSERS cards that may lose
    bystanders: int = 0  # a bit per seat that leaves another's run at the moon to the others
    noisy: int = 0  # a bit per seat that now and then plays a legal card at random (`SLIP`)
    # One uniform draw per play of the round, by its number from the first trick's lead: a
    # noisy seat whose draw falls under SLIP plays at random. Drawn by the caller, so that the
    # rollouts of every card on one sampled deal slip alike.
    slips: Sequence[float] | None = None


def hand_of(cards: Iterable[Card]) -> Hand:
    return suited(card.index for card in cards)


def suited(cards: Iterable[int]) -> Hand:
    """Card indexes as a hand: four ascending lists, one per suit."""
    hand: Hand = [[], [], [], []]
    for card in sorted(cards):
        hand[card // 13].append(card)
    return hand


def rollout(rules: Rules, table: Table, trace: list[tuple[int, int]] | None = None,
            ) -> tuple[int, ...]:
    """Every seat's score for the round once `table` is played out; `table` is used up.

    `trace`, when given, receives each simulated (seat, card index) in order: for checking
    the simulation against the rules.
    """
    hands, plays, points, won = table.hands, table.plays, table.points, table.won
    leader, broken, queen_played, jack = table.leader, table.broken, table.queen_played, table.jack
    seats = len(hands)
    tricks = sum(won)
    last_trick = tricks + (sum([len(s) for h in hands for s in h]) + len(plays)) // seats
    first_trick = tricks == 0
    winner, top = _winning(plays)
    voids = list(table.voids or [0] * seats)
    seek_jack = rules.jack_of_diamonds and jack is None
    total = sum(points)
    kin, kin_until, bold, bystanders = table.kin, table.kin_until, table.bold, table.bystanders
    slips = table.slips or ()
    noisy = table.noisy if slips else 0
    # Each seat's ways with the moon, looked up once rather than at every play.
    may_lose = [BOLD_LOSERS if bold >> s & 1 else MOON_LOSERS for s in range(seats)]
    fights_moons = [not bystanders >> s & 1 for s in range(seats)]
    queen_breaks = rules.queen_breaks_hearts
    led = top // 13
    while True:
        if len(plays) == seats:
            taken = 0  # `_points_in`, inline: this runs at every trick of every rollout
            for _, card in plays:
                if card >= FIRST_HEART:
                    taken += 1
                elif card == QUEEN:
                    taken += 13
            points[winner] += taken
            total += taken
            won[winner] += 1
            tricks += 1
            if seek_jack and any(c == JACK for _, c in plays):
                jack, seek_jack = winner, False
            if tricks == last_trick:
                break
            leader, plays, first_trick = winner, [], False
        seat = (leader + len(plays)) % seats
        if kin and kin >> seat & 1 and tricks < kin_until:
            now = Table(hands, leader, plays, points, won, jack, broken, queen_played, voids,
                        bold=bold, bystanders=bystanders, noisy=noisy, slips=slips)
            card = (table.kin_player or searched_play)(rules, now, seat)
        elif noisy and noisy >> seat & 1 and (slip := slips[tricks * seats + len(plays)]) < SLIP:
            # Under SLIP the draw, scaled, is itself uniform: it picks the card.
            cards = _legal(rules, hands[seat], plays, first_trick, broken)
            card = cards[int(slip / SLIP * len(cards))]
        else:
            card = _choose(rules, hands, seat, plays, winner, top, first_trick, broken,
                           queen_played, voids, points, total, may_lose[seat],
                           fights_moons[seat])
        suit = card // 13
        if not plays:
            winner, top, led = seat, card, suit
        elif suit == led:
            if card > top:
                winner, top = seat, card
        else:
            voids[seat] |= 1 << led
        hands[seat][suit].remove(card)
        plays.append((seat, card))
        if trace is not None:
            trace.append((seat, card))
        if card >= FIRST_HEART:
            broken = True
        elif card == QUEEN:
            queen_played = True
            broken = broken or queen_breaks
    sun = next((s for s in range(seats) if won[s] == last_trick), None)
    return round_scores(rules, tuple(points), sun, jack)


def searched_play(rules: Rules, table: Table, seat: int) -> int:
    """The card `seat` plays as a player who sees these hands and searches one ply: each
    distinct legal card played, the round played out by rules of thumb, the best outcome
    (its own score against the others' mean) kept. `table` is left as it was.

    A seat of `Table.kin` plays so: the expert may model the seats held by another expert this
    way (`ExpertPolicy(kin=True)`), since with every card seen that model of the seat across
    is what the benches' arena figures turn on most."""
    cards = distinct(rules, legal_plays(rules, table, seat), out_of(table, seat))
    if len(cards) == 1:
        return cards[0]
    best, best_value = -1, 0.0
    for card in cards:
        value = margin(rollout(rules, played(rules, table, table.hands, seat, card, kin=0)), seat)
        if best < 0 or value < best_value:
            best, best_value = card, value
    return best


def thumb_play(rules: Rules, table: Table, seat: int) -> int:
    """The card `seat` plays on `table` by rules of thumb (`table` is left as it was)."""
    winner, top = _winning(table.plays)
    return _choose(rules, table.hands, seat, table.plays, winner, top, not any(table.won),
                   table.broken, table.queen_played, table.voids or [0] * len(table.hands),
                   table.points, sum(table.points),
                   BOLD_LOSERS if table.bold >> seat & 1 else MOON_LOSERS,
                   not table.bystanders >> seat & 1)


def legal_plays(rules: Rules, table: Table, seat: int) -> list[int]:
    """The cards `seat` may play now, by `domain.legal`'s rules, in ascending order."""
    return _legal(rules, table.hands[seat], table.plays, not any(table.won), table.broken)


def _legal(rules: Rules, hand: Hand, plays: Sequence[tuple[int, int]], first_trick: bool,
           broken: bool) -> list[int]:
    if not plays:
        if first_trick:
            return [TWO_CLUBS]
        if broken or not any(hand[:HEARTS]):
            return [c for suit in hand for c in suit]
        return [c for suit in hand[:HEARTS] for c in suit]
    led = hand[plays[0][1] // 13]
    if led:
        return list(led)
    cards = [c for suit in hand for c in suit]
    if first_trick and not rules.points_on_first_trick:
        clean = [c for c in cards if c < FIRST_HEART and c != QUEEN]
        return clean or cards
    return cards


def distinct(rules: Rules, cards: list[int], out: Collection[int]) -> list[int]:
    """One card of each run of `cards` (ascending, one seat's) that play alike: the same
    suit, none of the cards `out` (held elsewhere or on the trick) between them, and neither
    the queen nor a scoring jack. Which card of a run is played cannot change a thing."""
    special = (QUEEN, JACK) if rules.jack_of_diamonds else (QUEEN,)
    runs: list[int] = []
    for card in cards:
        last = runs[-1] if runs else -1
        if last < 0 or last // 13 != card // 13 or card in special or last in special \
                or any(last < c < card for c in out):
            runs.append(card)
    return runs


def out_of(table: Table, seat: int) -> set[int]:
    """The cards out of `seat`'s hand that are still in play: the others' and the trick's."""
    held = {c for other, hand in enumerate(table.hands) if other != seat
            for suit in hand for c in suit}
    return held | {c for _, c in table.plays}


def margin(scores: Sequence[int], seat: int) -> float:
    """What a round's `scores` mean to `seat`: its score against the others' mean (lower is
    better), so that a moon counts as it should whichever way it is scored."""
    return scores[seat] - (sum(scores) - scores[seat]) / (len(scores) - 1)


def played(rules: Rules, table: Table, hands: list[Hand], seat: int, card: int,
           kin: int | None = None) -> Table:
    """`table` with (a copy of) `hands` and `seat` having just played `card`; `kin` the
    searching seats from then on (by default, `table`'s)."""
    dealt = [[list(suit) for suit in hand] for hand in hands]
    dealt[seat][card // 13].remove(card)
    broken = table.broken or card >= FIRST_HEART or (card == QUEEN and rules.queen_breaks_hearts)
    voids = list(table.voids or [0] * len(hands))
    if table.plays and card // 13 != table.plays[0][1] // 13:
        voids[seat] |= 1 << (table.plays[0][1] // 13)
    return Table(dealt, table.leader, [*table.plays, (seat, card)], list(table.points),
                 list(table.won), table.jack, broken, table.queen_played or card == QUEEN,
                 voids, table.kin if kin is None else kin, table.kin_until, table.kin_player,
                 table.bold, table.bystanders, table.noisy, table.slips)


def _winning(plays: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The seat taking the trick so far, and its card (the highest of the led suit)."""
    if not plays:
        return -1, -1
    led = plays[0][1] // 13
    winner, top = plays[0]
    for seat, card in plays:
        if card // 13 == led and card > top:
            winner, top = seat, card
    return winner, top


def _points_in(plays: Sequence[tuple[int, int]]) -> int:
    taken = 0
    for _, card in plays:
        if card >= FIRST_HEART:
            taken += 1
        elif card == QUEEN:
            taken += 13
    return taken


def _choose(rules: Rules, hands: list[Hand], seat: int, plays: list[tuple[int, int]],
            winner: int, top: int, first_trick: bool, broken: bool, queen_played: bool,
            voids: list[int], points: list[int], total: int, may_lose: int,
            fights_moons: bool) -> int:
    """The card `seat` plays: a competent player's rules of thumb, the moon's both ways; it
    runs at the moon holding every point so far with at most `may_lose` cards that could
    lose, and, if it `fights_moons`, fights another's run. (Many plain arguments rather than
    one object: this runs millions of times a minute.)"""
    hand = hands[seat]
    if plays and len(hand[top // 13]) == 1:
        return hand[top // 13][0]  # the one card that follows suit, whatever the plan
    shooting = 0 < total == points[seat] and losers(hands, seat) <= may_lose
    # Past MOON_WATCH, at most one seat can hold every point taken.
    threat = points.index(total) if total >= MOON_WATCH and total in points else None
    defend = fights_moons and threat is not None and threat != seat
    if not plays:
        if shooting:
            return _lead_to_win(hands, seat, broken)
        if defend and hand[HEARTS] and (broken or not any(hand[:HEARTS])):
            return hand[HEARTS][-1]  # win a heart back from the would-be shooter
        return _lead(hands, seat, first_trick, broken, queen_played, voids)
    cards = hand[top // 13]
    if cards:
        if shooting and cards[-1] > top:
            return cards[-1]
        return _follow(cards, top, len(plays) == len(hands) - 1,
                       defend and winner == threat and _points_in(plays) > 0)
    if shooting and not (first_trick and not rules.points_on_first_trick):
        return min((s[0] for s in hand if s), key=lambda c: (c >= FIRST_HEART, c % 13))
    return _discard(rules, hand, first_trick, queen_played, defend and winner == threat)


def losers(hands: list[Hand], seat: int) -> int:
    """How many of the seat's cards could lose a trick to a card another seat holds: its
    card with `position` of its own above it loses if more than `position` others' do."""
    count = 0
    mine_by_suit = hands[seat]
    for suit in (CLUBS, DIAMONDS, SPADES, HEARTS):
        mine = mine_by_suit[suit]
        if not mine:
            continue
        # Every card of the suit still held, the seat's own among them: the others' cards
        # above one of its own are all those above it less its own.
        held = sorted([c for hand in hands for c in hand[suit]])
        out = len(held)
        for position, card in enumerate(reversed(mine)):
            if out - bisect(held, card) - position > position:
                count += 1
    return count


def _lead_to_win(hands: list[Hand], seat: int, broken: bool) -> int:
    """A shooter's lead: a sure winner, the highest."""
    hand = hands[seat]
    side = hand[CLUBS] or hand[DIAMONDS] or hand[SPADES]
    best, best_key = -1, (False, -1)
    for suit in (CLUBS, DIAMONDS, SPADES, HEARTS):
        if not hand[suit] or (suit == HEARTS and side and not broken):
            continue
        card = hand[suit][-1]
        others_top = max((hands[o][suit][-1] for o in range(len(hands))
                          if o != seat and hands[o][suit]), default=-1)
        key = (card > others_top, card % 13)
        if key > best_key:
            best, best_key = card, key
    return best


def _lead(hands: list[Hand], seat: int, first_trick: bool, broken: bool, queen_played: bool,
          voids: list[int]) -> int:
    """The safest lead: not a sure winner, not into the queen, low, where no one is void.
    (Each card's risk and rank are weighed as one number, risk * 16 + rank: the same order
    as the pair, cheaper to compare.)"""
    if first_trick:
        return TWO_CLUBS
    hand = hands[seat]
    spades = hand[SPADES]
    holds_queen = QUEEN in spades
    seats = len(hands)
    others_void = 0
    for other in range(seats):
        if other != seat:
            others_void |= voids[other]
    hearts_barred = not broken and bool(hand[CLUBS] or hand[DIAMONDS] or spades)
    best, best_key = -1, 1 << 30
    for suit in (CLUBS, DIAMONDS, SPADES, HEARTS):
        cards = hand[suit]
        if not cards or (suit == HEARTS and hearts_barred):
            continue
        others_top = -1
        for other in range(seats):
            if other != seat:
                held = hands[other][suit]
                if held and held[-1] > others_top:
                    others_top = held[-1]
        void_seen = VOID_SEEN if others_void >> suit & 1 else 0
        if suit != SPADES:
            card = cards[0]
            risk = (SURE_WIN if card > others_top else 0) + void_seen
            if suit == HEARTS:
                risk += HEART_LEAD
            key = risk * 16 + card % 13
            if key < best_key:
                best, best_key = card, key
            continue
        for card in cards:
            risk = (SURE_WIN if card > others_top else 0) + void_seen
            if card > QUEEN:
                if not queen_played and not holds_queen:
                    risk += UNDER_QUEEN
            elif card == QUEEN:
                risk += QUEEN_LEAD
            elif not holds_queen:
                risk += FLUSH_QUEEN
            key = risk * 16 + card % 13
            if key < best_key:
                best, best_key = card, key
    return best


def _follow(cards: list[int], top: int, last: bool, take_from_shooter: bool) -> int:
    """Duck under the highest card played; if we cannot, win it as high as is safe."""
    if take_from_shooter and cards[-1] > top:
        return cards[-1]
    if top > QUEEN and QUEEN in cards:
        return QUEEN  # someone else's king or ace takes the queen
    # No queen is below `top` here (she would have gone on it above), so the highest card
    # under it ducks.
    under = bisect(cards, top)
    if under:
        return cards[under - 1]
    # Every card is above `top`: the highest when last (the queen kept back), else the lowest.
    if last:
        return cards[-2] if cards[-1] == QUEEN and len(cards) > 1 else cards[-1]
    return cards[1] if cards[0] == QUEEN and len(cards) > 1 else cards[0]


def _discard(rules: Rules, hand: Hand, first_trick: bool, queen_played: bool,
             to_shooter: bool) -> int:
    """Shed the queen, then the top spades while she is out, then high hearts; but give a
    would-be shooter nothing."""
    no_points = first_trick and not rules.points_on_first_trick
    if to_shooter:
        clean = [c for suit in hand[:HEARTS] for c in suit if c != QUEEN]
        if clean:
            return max(clean, key=lambda c: c % 13)
    if no_points and (hand[CLUBS] or hand[DIAMONDS] or any(c != QUEEN for c in hand[SPADES])):
        options = [c for c in (*hand[CLUBS], *hand[DIAMONDS], *hand[SPADES]) if c != QUEEN]
        if options[-1] > QUEEN and not queen_played:
            return options[-1]  # a top spade, while the queen can still fall on it
        return max(options, key=lambda c: (c % 13 - 2 * len(hand[c // 13]), c % 13))
    spades = hand[SPADES]
    if QUEEN in spades:
        return QUEEN
    if spades and spades[-1] > QUEEN and not queen_played:
        return spades[-1]
    if hand[HEARTS]:
        return hand[HEARTS][-1]
    # The highest card of the suit whose top is highest less twice its length (the first such
    # suit on a tie): shedding it leaves a short suit shorter.
    best, best_key = -1, -99
    for suit in hand:
        if suit and suit[-1] % 13 - 2 * len(suit) > best_key:
            best, best_key = suit[-1], suit[-1] % 13 - 2 * len(suit)
    return best
