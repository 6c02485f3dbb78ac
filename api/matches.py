"""The match resources: create, view, pass, play, choose the moon, read the log, analyse."""

from __future__ import annotations

import re
from typing import Any, cast

from flask import Blueprint, Flask, Response, current_app, g, jsonify, request, url_for
from marshmallow import Schema

from api.json_body import parse_object, read_body
from api.limits import on_check, on_create, on_move
from api.problems import BadRequest, InvalidFields
from api.schemas import (
    BIGGEST_HAND,
    MAX_VERSION,
    CreateMatchIn,
    EventsQuery,
    MoonIn,
    NoFieldsIn,
    PassIn,
    PlayIn,
)
from domain.events import SeatSpec
from domain.rules import MoonRule, Rules
from service import MatchService, Reply
from service.errors import NotFound, Unauthorized
from service.idempotency import MAX_KEY, Idempotency, WeakKey, check_creation_key

bp = Blueprint("matches", __name__, url_prefix="/v1/matches")
KEY_PATTERN = re.compile(r"[!-~](?:[ -~]*[!-~])?")


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


def service() -> MatchService:
    return cast(MatchService, current_app.extensions["cardems"])


def raw_body() -> dict[str, Any]:
    """The request's JSON object, read and checked once per request."""
    if "body" not in g:
        if not request.is_json:
            raise BadRequest(415, "send the body as application/json")
        g.body = parse_object(read_body(request))
    return cast(dict[str, Any], g.body)


def body(schema: Schema) -> dict[str, Any]:
    """The JSON body, parsed and validated by `schema`."""
    return cast(dict[str, Any], schema.load(raw_body()))


def idempotency(creation: bool = False) -> Idempotency | None:
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if len(key) > MAX_KEY or not KEY_PATTERN.fullmatch(key):
        raise BadRequest(400, f"Idempotency-Key takes 1 to {MAX_KEY} visible ASCII characters")
    if creation:
        try:
            check_creation_key(key)
        except WeakKey as weak:
            raise BadRequest(400, str(weak)) from None
    return Idempotency.of(key, raw_body())


def bearer() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("use 'Authorization: Bearer <token>'")
    return token.strip()


def acting_seat(match_id: str) -> int:
    seat = service().seat_of(match_id, bearer())
    if seat is None:
        raise Unauthorized("this needs a seat's bearer token")
    return seat


IF_MATCH = re.compile(r'(?:W/)?"?([0-9]{1,10})"?')


def if_match() -> int | None:
    header = request.headers.get("If-Match")
    if header is None:
        return None
    found = IF_MATCH.fullmatch(header.strip())
    if found is None:
        raise BadRequest(400, 'If-Match takes the version as an ETag of 1 to 10 ASCII digits,'
                              ' like "12"')
    return int(found.group(1))


def reply_response(view: dict[str, Any], version: int, status: int = 200) -> Response:
    # The service's dicts are already in the contract's shape (tests/unit/test_fast_output.py
    # checks them against the response schemas); dumping them again cost six times the JSON.
    response = jsonify(view)
    response.status_code = status
    response.headers["ETag"] = f'"{version}"'
    return response


def view_response(body: bytes, version: int) -> Response:
    """A view the service has already written as JSON."""
    response = current_app.response_class(body, mimetype="application/json")
    response.headers["ETag"] = f'"{version}"'
    return response


def moved(reply: Reply) -> Response:
    return reply_response(reply.view, reply.version)


@bp.post("")
@on_create
def create_match() -> Response:
    data = body(CreateMatchIn())
    seats = [SeatSpec(s["name"], s["bot"]) for s in data["seats"]]
    rules = Rules.from_mapping(data["rules"], len(seats))
    reply = service().create_match(seats, rules, data["client_seed"], data["decks"],
                                   idempotency(creation=True), request.remote_addr or "")
    response = reply_response(reply["view"], reply["version"], 201)
    response.headers["Location"] = url_for("matches.get_match", match_id=reply["view"]["id"])
    return response


@bp.get("/<match_id>")
def get_match(match_id: str) -> Response:
    seat = service().seat_of(match_id, bearer())
    return view_response(*service().view_body(match_id, seat))


@bp.post("/<match_id>/passes")
@on_move
def pass_cards(match_id: str) -> Response:
    seat = acting_seat(match_id)
    data = body(PassIn())
    return moved(service().pass_cards(match_id, seat, data["cards"], if_match(), idempotency()))


@bp.post("/<match_id>/plays")
@on_move
def play_card(match_id: str) -> Response:
    seat = acting_seat(match_id)
    data = body(PlayIn())
    return moved(service().play_card(match_id, seat, data["card"], if_match(), idempotency()))


@bp.post("/<match_id>/moon")
@on_move
def choose_moon(match_id: str) -> Response:
    seat = acting_seat(match_id)
    data = body(MoonIn())
    choice = MoonRule(data["choice"])
    return moved(service().choose_moon(match_id, seat, choice, if_match(), idempotency()))


@bp.post("/<match_id>/back")
@on_move
def come_back(match_id: str) -> Response:
    seat = acting_seat(match_id)
    body(NoFieldsIn())
    return moved(service().come_back(match_id, seat, if_match(), idempotency()))


@bp.post("/<match_id>/abandon")
@on_move
def abandon(match_id: str) -> Response:
    seat = acting_seat(match_id)
    body(NoFieldsIn())
    return moved(service().abandon(match_id, seat, if_match(), idempotency()))


@bp.post("/<match_id>/analysis")
@on_create
def ask_analysis(match_id: str) -> Response:
    """Ask for the analysis of every round that is over: computed by the bot workers, read
    with the GET beside it. Asking again changes nothing until another round is over."""
    service().seat_of(match_id, bearer())
    body(NoFieldsIn())
    idempotency()  # checked like any other; asking is the same however often it is sent
    response = jsonify(service().ask_analysis(match_id))
    response.status_code = 202
    response.headers["Location"] = url_for("matches.analysis", match_id=match_id)
    return response


@bp.get("/<match_id>/analysis")
def analysis(match_id: str) -> Response:
    service().seat_of(match_id, bearer())
    report = service().analysis(match_id)
    if report is None:
        raise NotFound("nobody has asked for this match's analysis yet: POST to ask")
    return jsonify(report)


@bp.get("/<match_id>/events")
def events(match_id: str) -> Response:
    seat = service().seat_of(match_id, bearer())
    query = EventsQuery().load(request.args.to_dict())
    items, now = service().events(match_id, seat, query["after"], query["limit"])
    last = items[-1]["version"] if items else query["after"]
    more = last < now.version
    next_url = url_for("matches.events", match_id=match_id, after=last,
                       limit=query["limit"]) if more else None
    return jsonify({"events": items, "version": now.version, "next": next_url})


@bp.get("/<match_id>/verify")
@on_check
def verify(match_id: str) -> Response:
    service().seat_of(match_id, bearer())
    return jsonify(service().verify(match_id))


@bp.get("/<match_id>/replay/<int:version>")
def replay(match_id: str, version: int) -> Response:
    seat = service().seat_of(match_id, bearer())
    within("version", version, 1, MAX_VERSION)
    return jsonify(service().replay(match_id, version, seat))


@bp.get("/<match_id>/rounds/<int:round_number>/tricks/<int:trick_number>")
@on_check
def audit(match_id: str, round_number: int, trick_number: int) -> Response:
    service().seat_of(match_id, bearer())
    within("round", round_number, 1, MAX_VERSION)
    within("trick", trick_number, 1, BIGGEST_HAND)
    return jsonify(service().audit(match_id, round_number, trick_number))


def within(name: str, value: int, low: int, high: int) -> None:
    """A number in the path inside the contract's bounds, or a 422 naming it (a number
    within them that names nothing yet is the service's 404)."""
    if not low <= value <= high:
        raise InvalidFields(f"the path's {name} is {low} to {high}",
                            {name: [f"{low} to {high}, not {value}"]})
