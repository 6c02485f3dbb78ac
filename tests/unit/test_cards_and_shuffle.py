import pytest

from domain.cards import DECK, BadCard, parse_card, spell
from domain.shuffle import deal, seed_commitment, shuffled_deck
from tests.builders import SEED


def test_the_canonical_deck_runs_clubs_diamonds_spades_hearts_two_to_ace():
    assert [str(DECK[i]) for i in (0, 12, 13, 36, 51)] == ["2C", "AC", "2D", "QS", "AH"]
    assert len(set(DECK)) == 52


@pytest.mark.parametrize("text", ["2C", "TD", "QS", "AH", "JD"])
def test_a_card_reads_back_as_it_is_spelled(text):
    assert str(parse_card(text)) == text
    assert parse_card(text) is parse_card(text)


@pytest.mark.parametrize("text", ["10H", "qs", "1C", "QX", "", "QS ", None, 12])
def test_anything_but_the_two_character_spelling_is_refused(text):
    with pytest.raises(BadCard):
        parse_card(text)


def test_the_commitment_is_the_sha256_of_the_seed():
    assert seed_commitment(SEED) == (
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")


def test_round_one_of_the_test_vector_is_reproduced():
    expected = ("8H QH QC 7S 5D 2D 2H 7C KD AD 3C 4S AH 2C 5S AC JH 4C 2S 3D 6H 6D 8C 9H 6C "
                "8S 5H JC 9S QD 9C 9D 7D KS 7H 3H JD TD 4D 4H KH TS TC 8D QS KC JS TH AS 5C 6S 3S")
    assert " ".join(map(str, shuffled_deck(SEED, "", 1))) == expected


def test_east_is_dealt_the_first_card_and_holds_the_test_vector_hand():
    hands = deal(shuffled_deck(SEED, "", 1), dealer=0)
    assert set(spell(hands[1])) == set(
        ["5D", "6C", "6H", "7D", "8H", "9S", "AH", "AS", "JD", "JH", "KD", "KH", "QS"])
    assert all(len(h) == 13 for h in hands)


def test_the_client_seed_and_round_change_the_deck_as_the_vector_says():
    assert [str(c) for c in shuffled_deck(SEED, "alice", 2)[:8]] == \
        ["8H", "AH", "7H", "7S", "4D", "TH", "5S", "QC"]


def test_the_dealer_rotates_who_gets_the_first_card():
    deck = shuffled_deck(SEED, "", 1)
    for dealer in range(4):
        assert deck[0] in deal(deck, dealer)[(dealer + 1) % 4]


def test_every_round_deck_is_a_permutation():
    for r in range(1, 30):
        assert sorted(shuffled_deck(SEED, "x", r)) == list(DECK)


def _stand_alone_verifier():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "docs" / "verify_match.py"
    spec = importlib.util.spec_from_file_location("verify_match", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_stand_alone_verifier_shuffles_and_deals_as_the_service_does():
    script = _stand_alone_verifier()
    from domain.shuffle import deal, shuffled_deck

    assert script.shuffled_deck(bytes(range(32)), "", 1)[:4] == ["8H", "QH", "QC", "7S"]
    for n in range(1, 30):
        seed = bytes([n]) * 32
        ours = shuffled_deck(seed, f"c{n}", n)
        theirs = script.shuffled_deck(seed, f"c{n}", n)
        assert theirs == [str(c) for c in ours]
        hands = [[str(c) for c in sorted(h)] for h in deal(ours, n % 4)]
        assert script.dealt_hands(theirs, n % 4) == hands


def test_the_stand_alone_verifier_shuffles_and_deals_every_count_as_the_service_does():
    script = _stand_alone_verifier()
    from domain.shuffle import deal, shuffled_deck
    from domain.table import table_for

    for seats in (3, 4, 5, 6):
        table = table_for(seats)
        assert script.cards_in_play(seats) == [str(c) for c in table.cards]
        for n in range(1, 12):
            seed = bytes([n, seats]) * 16
            ours = shuffled_deck(seed, f"c{n}", n, table)
            theirs = script.shuffled_deck(seed, f"c{n}", n, seats)
            assert theirs == [str(c) for c in ours]
            hands = [[str(c) for c in h] for h in deal(ours, n % seats, table)]
            assert script.dealt_hands(theirs, n % seats, seats) == hands
