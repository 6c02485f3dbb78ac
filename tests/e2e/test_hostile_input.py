"""Input built to break the server gets a clear 4xx problem document and changes nothing:
deep nesting, lone surrogates, non-ASCII digits in headers, chunked bodies over the limit,
names that would hide or imitate other text."""

from __future__ import annotations

import http.client
import json

import pytest

from harness.http import call
from tests.e2e.conftest import PEOPLE, create, view
from tests.e2e.test_errors_and_conditions import assert_problem


@pytest.fixture(scope="module")
def match(server):
    return create(server.base)


def send(server, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict]:
    """A request with headers as given, bytes as given (urllib would refuse some)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.putrequest(method, path)
    for key, value in (headers or {}).items():
        conn.putheader(key, value.encode("utf-8"))
    if body is not None and "Transfer-Encoding" not in (headers or {}):
        conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    response = conn.getresponse()
    payload = json.loads(response.read() or b"null")
    conn.close()
    return response.status, payload


def chunked(size: int) -> bytes:
    body = b'{"seats": [], "pad": "' + b"a" * size + b'"}'
    out = b""
    for i in range(0, len(body), 4096):
        piece = body[i:i + 4096]
        out += f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    return out + b"0\r\n\r\n"


def test_json_nested_twenty_thousand_deep_is_a_400(server, match):
    for raw in (b"[" * 20_000 + b"]" * 20_000, b'{"seats":' + b"[" * 20_000):
        reply = call(server.base, "POST", "/v1/matches", raw=raw)
        assert_problem(reply, 400, "invalid_request")
        assert "deeper than 16" in reply.body["detail"]
    version = view(server.base, match["id"])["version"]
    reply = call(server.base, "POST", f"/v1/matches/{match['id']}/plays",
                 token=match["tokens"]["0"], raw=b'{"card": ' + b"[" * 5000 + b"]" * 5000 + b"}")
    assert_problem(reply, 400, "invalid_request")
    assert view(server.base, match["id"])["version"] == version


@pytest.mark.parametrize(("body", "field"), [
    ('{"seats": [{"name": "\\ud800"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}',
     "seats"),
    ('{"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}], '
     '"client_seed": "x\\udfffy"}', "client_seed"),
    ('{"seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}], '
     '"rules": {"\\ud83d": 1}}', "rules"),
])
def test_a_lone_surrogate_anywhere_is_a_422_naming_the_field(server, body, field):
    reply = call(server.base, "POST", "/v1/matches", raw=body.encode())
    assert_problem(reply, 422, "invalid_request")
    assert field in reply.body["errors"], reply.body


@pytest.mark.parametrize("value", ['"\u00b2"', '"' + "9" * 5000 + '"', "\u0661\u0662",
                                   '"12345678901"', '"-1"', '"1 2"'])
def test_if_match_that_is_not_1_to_10_ascii_digits_is_a_400(server, match, value):
    token = match["tokens"]["0"]
    status, body = send(server, "POST", f"/v1/matches/{match['id']}/passes",
                        b'{"cards": ["2C", "3C", "4C"]}',
                        {"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                         "If-Match": value})
    assert (status, body["code"]) == (400, "invalid_request"), body
    assert "If-Match" in body["detail"]


@pytest.mark.parametrize("value", ["\u00b2", "1" * 11, "\u0661", "-3", "0x10"])
def test_a_last_event_id_that_is_not_1_to_10_ascii_digits_is_a_400(server, match, value):
    status, body = send(server, "GET", f"/v1/matches/{match['id']}/events/stream",
                        headers={"Last-Event-ID": value})
    assert (status, body["code"]) == (400, "invalid_request"), body


def test_a_chunked_body_over_the_limit_is_a_413_and_under_it_is_read(server):
    headers = {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}
    status, body = send(server, "POST", "/v1/matches", chunked(70_000), headers)
    assert (status, body["code"]) == (413, "payload_too_large"), body
    status, body = send(server, "POST", "/v1/matches", chunked(100), headers)
    assert (status, body["code"]) == (422, "invalid_request"), body  # read, then refused
    assert "pad" in body["errors"]


@pytest.mark.parametrize("name", ["A\x00B", "\x1b[31mRed", "Ann\r\nBob", "\u202eevil",
                                  "Ann\u2066", "zero\u200bwidth", " ", "x" * 41, "",
                                  # printable, and rendered blank
                                  "\u3164", "\u2800", "\u0301", "\u3164\u2800",
                                  "\u0301Ann"])
def test_a_name_that_could_hide_or_imitate_text_is_a_422_naming_it(server, name):
    seats = [{"name": name}, *PEOPLE[1:]]
    reply = call(server.base, "POST", "/v1/matches", {"seats": seats})
    assert_problem(reply, 422, "invalid_request")
    assert reply.body["errors"] == {"seats": {"0": {"name": reply.body["errors"]["seats"]["0"][
        "name"]}}}, reply.body


def test_names_are_kept_in_normal_form_c_and_trimmed(server):
    seats = [{"name": "  Zoe\u0301 "}, *PEOPLE[1:]]  # e + combining acute: one letter in NFC
    created = create(server.base, seats=seats)
    assert created["seats"][0]["name"] == "Zo\u00e9"


def test_names_in_any_script_are_welcome(server):
    names = ["\uae40\ubbfc\uc900", "\u0905\u0928\u093f\u0932", "\u2603", "\u0661\u0662", "O'Neil"]
    created = create(server.base, seats=[{"name": n} for n in names[:4]])
    assert [s["name"] for s in created["seats"]] == names[:4]


@pytest.mark.parametrize("path", ["replay/\u0661", "replay/\uff11", "rounds/\u0661/tricks/1",
                                  "rounds/1/tricks/\u0967"])
def test_path_numbers_take_ascii_digits_only(server, match, path):
    from urllib.parse import quote

    reply = call(server.base, "GET", f"/v1/matches/{match['id']}/" + quote(path))
    assert reply.status == 404, reply.body
    assert reply.headers["content-type"] == "application/problem+json"


@pytest.mark.parametrize("query", ["after=1_0", "after=\u0661", "limit=\uff15", "after=+1",
                                   "after=%201"])
def test_query_numbers_take_ascii_digits_only(server, match, query):
    from urllib.parse import quote

    name, _, value = query.partition("=")
    for path in ("events", "events/stream"):
        reply = call(server.base, "GET",
                     f"/v1/matches/{match['id']}/{path}?{name}={quote(value, safe='%')}")
        assert_problem(reply, 422, "invalid_request")
        assert name in reply.body["errors"], reply.body


def raw_exchange(server, request: bytes) -> tuple[int, dict[str, str], dict]:
    """Send bytes gunicorn itself must refuse; the status, headers and problem document."""
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, \
        json.loads(body)


@pytest.mark.parametrize(("request_bytes", "status", "code"), [
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-H%d: v\r\n" % i for i in range(200)) + b"\r\n", 431, "headers_too_large"),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 9000 + b"\r\n\r\n", 431,
     "headers_too_large"),
    (b"NOT HTTP AT ALL\r\n\r\n", 400, "invalid_request"),
    (b"GET /healthz HTTP/1.1\r\nBad Header Line\r\n\r\n", 400, "invalid_request"),
])
def test_requests_the_http_parser_refuses_get_a_problem_document(server, request_bytes,
                                                                 status, code):
    got, headers, problem = raw_exchange(server, request_bytes)
    assert got == status
    assert headers["content-type"] == "application/problem+json"
    assert problem["status"] == status and problem["code"] == code
    assert call(server.base, "GET", "/healthz").status == 200, "the server is still up"


@pytest.mark.parametrize("body", [
    b"zz\r\n\r\n",  # a size that is not hexadecimal
    b"3\r\nabcXX0\r\n\r\n",  # a chunk whose line end is wrong
    b"3\r\nabc\r\n0\r\nX",  # a last chunk cut short
    b"-1\r\n\r\n",  # a negative size
    b"10\r\nabc",  # a chunk cut off: the client is gone
])
def test_a_malformed_chunked_body_is_a_400_that_logs_no_traceback(tmp_path, body):
    import socket

    from harness.http import Server

    log = tmp_path / "server.log"
    server = Server("--store", f"sqlite:///{tmp_path / 'chunks.sqlite3'}", log=log)
    try:
        conn = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        conn.sendall(b"POST /v1/matches HTTP/1.1\r\nHost: cardems\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     + body)
        conn.shutdown(socket.SHUT_WR)
        reply = b""
        while part := conn.recv(65536):
            reply += part
        conn.close()
        assert reply.startswith(b"HTTP/1.1 400 "), reply[:80]
        head, _, payload = reply.partition(b"\r\n\r\n")
        assert b"Connection: close" in head and b"application/problem+json" in head
        assert reply.count(b"\r\nDate: ") == 1, "one reply, then the connection is closed"
        assert json.loads(payload)["code"] == "invalid_request"
        assert call(server.base, "GET", "/healthz").status == 200
    finally:
        server.stop()
    assert "Traceback" not in log.read_text(errors="replace")
