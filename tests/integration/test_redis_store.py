import pytest
import redis
from redis.crc import key_slot

from eventstore import NewEvent, StoreConfig
from eventstore.redis_store import RedisStore
from tests.integration.store_contract import StoreContract, new


@pytest.fixture
def url(redis_url):
    return redis_url



class TestRedisStore(StoreContract):
    def test_a_matchs_keys_share_one_hash_tag(self, store):
        store.append("abc", new(1), 0, meta={"k": "v"})
        keys = sorted(store.client.keys("*"))
        assert keys == ["cardems:{abc}:events", "cardems:{abc}:meta"]
        assert len({key_slot(k.encode()) for k in keys}) == 1

    def test_the_server_runs_with_every_write_fsynced(self, store):
        config = store.client.config_get("append*")
        assert config["appendonly"] == "yes" and config["appendfsync"] == "always"


@pytest.mark.parametrize(("name", "args"), [
    ("append", ("s", new(1), 0)), ("read", ("s",)), ("versions", (["s"],)),
    ("version", ("s",)), ("get_meta", ("s", "k")), ("put_meta", ("s", "k", "v")),
    ("is_empty", ())])
def test_an_unreachable_redis_is_a_store_error_and_nothing_of_redis_s_own(name, args):
    from eventstore import StoreError

    store = RedisStore(redis.Redis(port=1, socket_connect_timeout=0.2))
    with pytest.raises(StoreError) as raised:
        getattr(store, name)(*args)
    assert type(raised.value) is StoreError  # not a redis.ConnectionError let through


def test_a_head_remembered_stale_is_read_again_and_the_chain_stays_whole(url):
    """One process remembers the head it wrote; the stream is then rewritten under it (a
    restore from a backup, say). Its next append must chain from the stored head, not the
    remembered one."""
    config = StoreConfig.parse(url)
    first, other = RedisStore.from_config(config), RedisStore.from_config(config)
    try:
        first.append("stale", new(1), 0)  # `first` remembers version 1 and its hash
        other.client.delete("cardems:{stale}:events")
        rewritten = other.append("stale", [NewEvent("Other", {"n": 9}, "t")], 0)
        assert rewritten[0].hash != first._heads.get("stale")[1], "the remembered head is stale"
        stored = first.append("stale", new(1), 1)
        assert stored[0].prev_hash == rewritten[0].hash
        events = first.read("stale")
        assert [e.type for e in events] == ["Other", "Thing"]
        assert events[1].prev_hash == events[0].hash
    finally:
        first.close()
        other.close()
