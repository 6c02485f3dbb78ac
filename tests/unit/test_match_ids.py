"""Match ids go on command lines: none may look like an option."""

from service.commands import new_match_id


def test_no_match_id_begins_with_a_dash():
    ids = [new_match_id() for _ in range(5000)]  # about 78 would, by chance alone
    assert not any(i.startswith("-") for i in ids)
    assert len(set(ids)) == len(ids) and all(len(i) == 22 for i in ids)
