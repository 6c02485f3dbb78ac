from domain.cards import DECK
from domain.codec import from_data, to_data
from domain.commands import PassCards
from domain.events import PassChosen, PassesExchanged, RoundDealt
from domain.evolve import evolve
from domain.legal import legal_cards, play_violation
from domain.sealing import canonical_json
from domain.state import Status
from domain.views import event_json, view_for, view_json
from tests.builders import SECRET, cards, create_command, random_match, then


def test_every_event_of_a_match_reads_back_exactly_from_its_json():
    _, events, _ = random_match(7)
    for event in events:
        data = to_data(event)
        again = from_data(type(event).__name__, __import__("json").loads(canonical_json(data)))
        assert again == event


def test_a_spectator_sees_no_hand_and_a_seat_only_its_own():
    state, _ = then(None, create_command())
    spectator = view_json(view_for(state, None))
    assert spectator["you"] is None
    assert spectator["trick"] is None, "the leader would tell who holds 2C before the exchange"
    for seat in range(4):
        you = view_json(view_for(state, seat))["you"]
        assert set(you["hand"]) == {str(c) for c in state.round.hands[seat]}
        assert you["legal"] == [] and you["passed"] is None


def test_the_deal_event_shows_a_seat_its_own_hand_until_the_round_is_over():
    state, events = then(None, create_command())
    dealt = events[1]
    assert isinstance(dealt, RoundDealt)
    for viewer in (None, 0, 1, 2, 3):
        hands = event_json(dealt, state, viewer)["hands"]
        assert [h is not None for h in hands] == [s == viewer for s in range(4)]


def test_a_pass_is_seen_by_its_passer_then_by_its_receiver_after_the_exchange():
    state, _ = then(None, create_command())
    chosen = {}
    for seat in range(4):
        chosen[seat] = tuple(sorted(state.round.hands[seat])[:3])
        state, events = then(state, PassCards(seat, chosen[seat], SECRET))
        pass_event = events[0]
        assert isinstance(pass_event, PassChosen)
        if seat == 0:
            first = pass_event
            before_exchange = state
    seen = [event_json(first, before_exchange, v)["cards"] is not None for v in range(4)]
    assert seen == [True, False, False, False]
    seen = [event_json(first, state, v)["cards"] is not None for v in range(4)]
    assert seen == [True, True, False, False], "round 1 passes left: seat 1 received it"
    exchanged = events[-1]
    assert isinstance(exchanged, PassesExchanged)
    for viewer in range(4):
        received = event_json(exchanged, state, viewer)["received"]
        assert [r is not None for r in received] == [s == viewer for s in range(4)]
        you = view_json(view_for(state, viewer))["you"]
        assert you["received"] == sorted(map(str, chosen[(viewer - 1) % 4]),
                                         key=lambda t: DECK.index(cards(t)[0]))


def test_only_the_seat_on_turn_sees_legal_cards():
    state, _ = then(None, create_command())
    for seat in range(4):
        state, _ = then(state, PassCards(seat, tuple(sorted(state.round.hands[seat])[:3]), SECRET))
    turn = state.round.turn
    for seat in range(4):
        legal = view_json(view_for(state, seat))["you"]["legal"]
        assert (legal == ["2C"]) == (seat == turn)
        assert legal == [] or seat == turn


def test_the_seat_on_turn_is_told_the_rule_that_bars_each_other_card():
    _, events, _ = random_match(11)
    reasons: set[str] = set()
    state = None
    for event in events:
        state = evolve(state, event)
        if state.status is not Status.PLAYING:
            continue
        for seat in range(4):
            you = view_json(view_for(state, seat))["you"]
            if seat != state.round.turn:
                assert you["illegal"] == {}
                continue
            hand = state.round.hands[seat]
            assert set(you["illegal"]) | set(you["legal"]) == {str(c) for c in hand}
            assert set(you["legal"]) == {str(c) for c in legal_cards(state.round, state.rules,
                                                                     seat)}
            assert not set(you["illegal"]) & set(you["legal"])
            for card in hand:
                rule = play_violation(state.round, state.rules, seat, card)
                assert you["illegal"].get(str(card)) == (rule and rule.value)
            reasons |= set(you["illegal"].values())
    assert reasons == {"must_lead_two_of_clubs", "must_follow_suit", "hearts_not_broken",
                       "no_points_on_first_trick"}


def test_the_server_seed_shows_only_once_the_match_is_over():
    state, events, command = random_match(3)
    assert state.status is Status.FINISHED
    assert view_for(state, None).server_seed == command.secret.server_seed.hex()
    from domain.evolve import fold
    assert view_for(fold(events[:-1]), None).server_seed is None


def test_hiding_a_value_leaves_the_data_it_came_from_as_it_was():
    from domain.sealing import public_form, with_hidden

    data = {"hands": [["2C"], ["3C"]], "sealed": {"hands.0": "a", "hands.1": "b"},
            "salts": {"hands.0": "s0", "hands.1": "s1"}, "round": 1}
    before = repr(data)
    seat = with_hidden(data, ["hands.1"])
    assert seat == {"hands": [["2C"], None], "sealed": {"hands.0": "a", "hands.1": "b"},
                    "salts": {"hands.0": "s0"}, "round": 1}
    assert public_form(data) == {"hands": [None, None], "sealed": data["sealed"], "round": 1}
    assert repr(data) == before


def test_an_event_as_stored_reads_as_its_decoded_self_for_every_reader():
    """The log is served from the stored data, decoded only where something is sealed; it
    must be exactly what the decoded event gives every reader, at every point of a match."""
    from domain.codec import event_type, to_data
    from domain.evolve import evolve
    from domain.views import stored_event_json
    from tests.builders import random_match

    _, events, _ = random_match(21)
    state = None
    for i, event in enumerate(events):
        state = evolve(state, event)
        if i % 9:
            continue
        for past in events[:i + 1]:
            for viewer in (None, 0, 1, 2, 3):
                assert stored_event_json(event_type(past), to_data(past), state, viewer) \
                    == event_json(past, state, viewer)
