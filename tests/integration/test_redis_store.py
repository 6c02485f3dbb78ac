import pytest
import redis
from redis.crc import key_slot

from eventstore.redis_store import RedisStore
from tests.integration.store_contract import StoreContract, new


@pytest.fixture
def url(redis_url):
    return redis_url


@pytest.fixture
def store(url):
    store = RedisStore.from_url(url)
    yield store
    store.close()


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
    ("append", ("s", new(1), 0)), ("read", ("s",)), ("wait_for", ("s", 0, 0.1)),
    ("version", ("s",)), ("get_meta", ("s", "k")), ("put_meta", ("s", "k", "v")),
    ("is_empty", ())])
def test_an_unreachable_redis_is_a_store_error_and_nothing_of_redis_s_own(name, args):
    from eventstore import StoreError

    store = RedisStore(redis.Redis(port=1, socket_connect_timeout=0.2))
    with pytest.raises(StoreError) as raised:
        getattr(store, name)(*args)
    assert type(raised.value) is StoreError  # not a redis.ConnectionError let through
