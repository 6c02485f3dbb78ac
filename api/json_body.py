"""Reading a JSON request body, so that no body of any shape or size can do harm.

The raw bytes are read up to a limit (413 beyond it, whether or not the body is chunked), the
nesting is measured before the parser sees it (400 past MAX_DEPTH, instead of a parser that
recurses until it fails), and every string is checked to be real Unicode (422 naming the
field for a lone surrogate, which no encoder can write and no hash can take).
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Request
from gunicorn.http.errors import ParseException
from werkzeug.exceptions import ClientDisconnected

from api.problems import BadRequest, InvalidFields

MAX_BODY = 64 * 1024
MAX_DEPTH = 16  # the deepest valid body (a create with decks) nests 3 deep
_SURROGATE = re.compile("[\ud800-\udfff]")
_OPEN, _CLOSE, _QUOTE, _ESCAPE = frozenset(b"[{"), frozenset(b"]}"), ord('"'), ord("\\")


def read_body(request: Request) -> bytes:
    """The raw body, at most MAX_BODY bytes, or a 413."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise BadRequest(413, f"the body may hold at most {MAX_BODY} bytes")
    # Flask's stream stops at Content-Length, and for a chunked body raises 413 past the
    # app's MAX_CONTENT_LENGTH; the count below makes sure of it either way.
    stream = request.stream
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = stream.read(min(MAX_BODY + 1 - size, 16384))
        except ClientDisconnected as gone:
            _close_after(request)
            # Werkzeug raises it while handling the socket's own error: a time limit run out.
            if isinstance(gone.__context__, TimeoutError):
                raise BadRequest(408, "the body did not arrive in time",
                                 "request_timeout") from None
            raise
        except ParseException as broken:  # gunicorn's reader of a chunked body
            _close_after(request)
            raise BadRequest(400, "the chunked body is malformed: a chunk size or its line"
                                  " end is not as HTTP/1.1 writes them") from broken
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BODY:
            raise BadRequest(413, f"the body may hold at most {MAX_BODY} bytes")


def _close_after(request: Request) -> None:
    """The connection cannot carry another request once a body's framing is broken: ask
    gunicorn, which takes no Connection header from the app, to close it after the reply."""
    reader = getattr(request.environ.get("wsgi.input"), "reader", None)
    if reader is not None and hasattr(reader, "req"):
        reader.req.must_close = True


def nesting(raw: bytes) -> int:
    """How deep arrays and objects nest in `raw`, counted outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == _ESCAPE:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            deepest = max(deepest, depth)
        elif byte in _CLOSE:
            depth -= 1
    return deepest


def parse_object(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object, or a 400/422 problem that says what is wrong."""
    if nesting(raw) > MAX_DEPTH:
        raise BadRequest(400, f"the body nests deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadRequest(400, "the body is not valid JSON in UTF-8") from None
    if not isinstance(data, dict):
        raise BadRequest(400, "the body must be a JSON object")
    errors = _surrogates(data)
    if errors:
        raise InvalidFields("a string holds a lone surrogate, which is not a character", errors)
    return data


def _surrogates(value: Any) -> dict[str, Any]:
    """Where lone surrogates stand, nested as the fields are (marshmallow's error shape)."""
    if isinstance(value, str):
        return {"_": ["not valid Unicode: a lone surrogate"]} if _SURROGATE.search(value) \
            else {}
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    errors: dict[str, Any] = {}
    for key, item in items:
        name = str(key)
        if isinstance(key, str) and _SURROGATE.search(key):
            name = _SURROGATE.sub("\ufffd", key)
            errors[name] = ["not valid Unicode: a lone surrogate in this key"]
            continue
        inner = _surrogates(item)
        if inner:
            errors[name] = inner.get("_", inner)
    return errors
