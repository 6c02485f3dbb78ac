"""A store's URL is read once, into the configuration every part is given."""

from __future__ import annotations

import pytest

from eventstore import StoreConfig, StoreError


def test_each_kind_of_store_and_what_its_parts_need_of_it():
    sqlite = StoreConfig.parse("sqlite:///data/x.sqlite3?commit=each")
    assert (sqlite.kind, sqlite.path, sqlite.commit) == ("sqlite", "data/x.sqlite3", "each")
    assert not sqlite.on_redis and sqlite.limiter_url == "memory://"
    redis = StoreConfig.parse("redis://127.0.0.1:6390/2")
    assert (redis.kind, redis.client_url) == ("redis", "redis://127.0.0.1:6390/2")
    assert redis.on_redis and redis.limiter_url == "redis://127.0.0.1:6390/2"
    cluster = StoreConfig.parse("redis+cluster://10.0.0.1:7000?wait=0&wait_ms=50")
    assert (cluster.kind, cluster.client_url, cluster.wait, cluster.wait_ms) == (
        "cluster", "redis://10.0.0.1:7000", 0, 50)
    assert cluster.limiter_url == "redis+cluster://10.0.0.1:7000" and cluster.on_cluster
    assert not redis.on_cluster and not sqlite.on_cluster
    assert StoreConfig.of(cluster) is cluster and StoreConfig.of(cluster.url) == cluster


@pytest.mark.parametrize(("url", "says"), [
    ("sqlite:///", "needs a file path"),
    ("sqlite:///x.db?commit=never", r"commit=group or \?commit=each"),
    ("redis+cluster://h:1?wait=all", "wait=REPLICAS"),
    ("redis+cluster://h:1?ttl=3", "wait=REPLICAS"),
    ("redis+cluster://", "wait=REPLICAS"),
    ("postgres://db/x", "unknown store"),
])
def test_a_bad_url_is_refused_saying_why(url, says):
    with pytest.raises(StoreError, match=says):
        StoreConfig.parse(url)
