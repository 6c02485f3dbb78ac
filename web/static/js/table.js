// The table page: a seat's table when this tab holds the seat's token, a spectator's
// otherwise. Live from the event stream; replay and the trick audit on the same screen.
import { $ } from "./dom.js";
import { Problem, call, matchPath, newKey, seatLink, tokens } from "./api.js";
import { cardWords } from "./cards.js";
import {
  WARN_SECONDS, collectTrick, drawHand, drawScores, drawSeats, drawTrick, promptFor, tickClocks,
} from "./draw.js";
import { openAudit } from "./audit.js";
import * as analysis from "./analysis.js";
import { showProof, showCommitment } from "./proof.js";
import { auditTarget, describe, indexLog, readLog } from "./replay.js";
import { EventFeed } from "./stream.js";

const matchId = decodeURIComponent(location.pathname.split("/")[2] || "");
const calm = matchMedia("(prefers-reduced-motion: reduce)").matches;
const PAUSE = calm ? { step: 0, hold: 300, sweep: 0 } : { step: 250, hold: 900, sweep: 450 };
const CATCH_UP = 16; // more events than this at once are drawn at once, not one by one

const page = {
  token: null,
  view: null, // the last view drawn live
  shown: 0, // the version it shows
  chosen: new Set(),
  feed: null,
  queue: [],
  busy: false,
  ended: false,
  stale: false, // a view could not be fetched: the table may lag behind the match
  replay: null, // { events, index, version, view } while replaying
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isOver = (view) => view.status === "finished" || view.status === "abandoned";

function say(text) {
  const box = $("announce");
  box.textContent = text;
  box.classList.remove("fresh");
  void box.offsetWidth; // restarts the fade
  box.classList.add("fresh");
}

function problemBanner(message) {
  const banner = $("page-problem");
  banner.textContent = message || "";
  banner.hidden = !message;
}

// A seat link's token moves from the address bar into this tab's session storage.
function takeTokenFromFragment() {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (token) tokens.set(matchId, token);
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
}

async function fetchView() {
  try {
    return await call("GET", matchPath(matchId), { token: page.token });
  } catch (problem) {
    if (page.token && (problem.status === 401 || problem.status === 403)) {
      tokens.forget(matchId);
      page.token = null;
      problemBanner("This tab's seat link does not open a seat of this match: you are"
        + " watching as a spectator.");
      return call("GET", matchPath(matchId));
    }
    throw problem;
  }
}

function handMode(view) {
  if (page.replay || !view.you) return "wait";
  if (view.status === "passing" && !view.seats_passed.includes(view.you.seat)) return "pass";
  if (view.status === "playing" && view.turn === view.you.seat) return "play";
  return "wait";
}

function announceChange(before, after) {
  if (!before || before.round !== after.round) return;
  if (!before.hearts_broken && after.hearts_broken) say("Hearts are broken.");
}

// Draws a live view in full and remembers it.
function show(view) {
  const before = page.view;
  page.view = view;
  page.shown = view.version;
  document.body.dataset.version = String(view.version);
  if (view.status !== "passing" || view.you?.passed) page.chosen.clear();
  document.title = `Cardems: round ${view.round}, ${view.seats.map((s) => s.name).join(", ")}`;
  if (page.replay) return;
  $("title").textContent = view.round ? `Round ${view.round}` : "Cardems table";
  drawSeats(view);
  drawTrick(view, view.trick?.plays || []);
  drawHand(view, { mode: handMode(view), chosen: page.chosen, onCard });
  drawScores(view, audit);
  $("prompt").textContent = promptFor(view, page.chosen);
  $("moon-choice").hidden = !(view.status === "moon_choice" && view.you
    && view.moon_shooter === view.you.seat);
  $("give-up").hidden = !view.you || isOver(view);
  $("away-box").hidden = !(view.you && view.away?.includes(view.you.seat) && !isOver(view));
  $("seat-link-box").hidden = !view.you;
  showCommitment(view);
  announceChange(before, view);
  if (isOver(view) && !page.ended) finish(view);
}

// Plays the events that just arrived onto the table, one by one, then draws the view.
async function playEvents(events) {
  const fresh = events.filter((e) => e.version > page.shown);
  const slow = fresh.length <= CATCH_UP && !page.replay;
  for (const event of slow ? fresh : []) {
    if (event.type === "CardPlayed") await showPlay(event.data);
    if (event.type === "TrickTaken") await showTaken(event.data);
    if (event.type === "RoundScored") sayRound(event.data);
  }
  if (fresh.length) show(await fetchView());
}

async function showPlay({ seat, card }) {
  const centre = $("centre");
  if (centre.classList.contains("collecting")) drawTrick(page.view, []);
  const plays = [...centre.querySelectorAll(".played")]
    .map((el) => ({ seat: Number(el.dataset.seat), card: el.dataset.card }));
  if (plays.some((p) => p.seat === seat)) return;
  drawTrick(page.view, [...plays, { seat, card }]);
  document.querySelector(`#hand [data-card="${card}"]`)?.closest(".hand-card")?.remove();
  await sleep(PAUSE.step);
}

async function showTaken({ winner, points }) {
  const centre = $("centre");
  const cards = [...centre.querySelectorAll(".played")].map((el) => el.dataset.card);
  for (const el of centre.querySelectorAll(".played")) {
    el.classList.toggle("winning", Number(el.dataset.seat) === winner);
  }
  const name = page.view.seats[winner].name;
  if (cards.includes("QS")) say(`${name} took the queen of spades.`);
  else if (cards.includes("JD") && page.view.rules.jack_of_diamonds) {
    say(`${name} took the jack of diamonds.`);
  } else if (points) say(`${name} took ${points} point${points === 1 ? "" : "s"}.`);
  await sleep(PAUSE.hold);
  collectTrick(page.view, winner);
  await sleep(PAUSE.sweep);
}

function sayRound({ round, moon, sun, jack }) {
  const name = (seat) => page.view.seats[seat].name;
  const parts = [];
  if (sun !== null) parts.push(`${name(sun)} shot the sun!`);
  else if (moon !== null) parts.push(`${name(moon)} shot the moon!`);
  if (jack !== null) parts.push(`${name(jack)} took the jack of diamonds.`);
  say(parts.length ? parts.join(" ") : `Round ${round} is over.`);
}

async function drain() {
  if (page.busy) return;
  page.busy = true;
  try {
    while (page.queue.length) {
      const batch = page.queue.splice(0);
      await playEvents(batch);
    }
  } catch {
    page.stale = true; // the server went away mid-way: drawn again once the stream is back
  } finally {
    page.busy = false;
  }
}

async function redrawIfStale() {
  if (!page.stale || page.busy) return;
  page.stale = false;
  try {
    show(await fetchView());
  } catch {
    page.stale = true;
  }
}

function follow() {
  page.feed?.stop();
  page.feed = new EventFeed(matchPath(matchId, "/events/stream"), {
    token: page.token,
    after: page.shown,
    onEvents: (events) => {
      page.queue.push(...events);
      drain();
    },
    onState: (state) => {
      const words = { live: "live", reconnecting: "reconnecting\u2026", stopped: "" };
      $("connection").textContent = words[state];
      $("connection").dataset.state = state; // what was missed meanwhile comes as events
      if (state === "live") redrawIfStale();
    },
  }).start();
}

// A move: the stream brings its events back to the table; the reply is drawn at once only
// when the stream is away.
async function move(path, body) {
  problemBanner("");
  try {
    const view = await call("POST", matchPath(matchId, path), {
      token: page.token, body, headers: { "Idempotency-Key": newKey() },
    });
    if ($("connection").dataset.state !== "live") show(view);
    return true;
  } catch (problem) {
    problemBanner(problem.message);
    if (problem instanceof Problem && problem.status === 409) show(await fetchView());
    return false;
  }
}

// The seats' clocks count down; the person is warned once when their own runs short.
let warnedFor = null;
function tickTurnClock() {
  const left = tickClocks();
  const view = page.view;
  const mine = view?.you ? left.get(view.you.seat) : undefined;
  const due = view?.you ? view.deadlines?.[String(view.you.seat)] : undefined;
  if (mine !== undefined && mine <= WARN_SECONDS && due !== warnedFor) {
    warnedFor = due;
    say(`${mine} seconds left to move, then your move is made for you.`);
  }
}

function onCard(card) {
  const view = page.view;
  if (handMode(view) === "pass") {
    if (page.chosen.has(card)) page.chosen.delete(card);
    else if (page.chosen.size < 3) page.chosen.add(card);
    else say("Three cards are chosen: put one back first.");
    drawHand(view, { mode: "pass", chosen: page.chosen, onCard });
    $("prompt").textContent = promptFor(view, page.chosen);
    return;
  }
  if (handMode(view) === "play") play(view, card);
}

// The hand waits for the reply, and the prompt says so at once: no card is playable now.
async function play(view, card) {
  drawHand(view, { mode: "wait", chosen: page.chosen, onCard });
  $("prompt").textContent = `Playing ${cardWords(card)}\u2026`;
  if (await move("/plays", { card })) return;
  if (page.view === view) { // refused, and nothing newer drawn meanwhile: choose again
    drawHand(view, { mode: "play", chosen: page.chosen, onCard });
    $("prompt").textContent = promptFor(view, page.chosen);
  }
}

async function passChosen() {
  const view = page.view;
  if (handMode(view) !== "pass" || page.chosen.size !== 3) return;
  const cards = [...page.chosen];
  drawHand(view, { mode: "wait", chosen: page.chosen, onCard }); // no second pass meanwhile
  $("prompt").textContent = `Passing ${cards.map(cardWords).join(", ")}\u2026`;
  if (await move("/passes", { cards })) say(`You passed ${cards.map(cardWords).join(", ")}.`);
  else {
    drawHand(view, { mode: "pass", chosen: page.chosen, onCard });
    $("prompt").textContent = promptFor(view, page.chosen);
  }
}

function finish(view) {
  page.ended = true;
  page.feed?.stop();
  $("connection").textContent = "";
  showProof(view, matchId, page.token);
  const dialog = $("end");
  if (!dialog.open) dialog.showModal();
}

function audit(round, trick) {
  const view = page.replay?.view || page.view;
  openAudit(view, matchId, page.token, round, trick);
}

function auditLast() {
  if (page.replay) {
    const target = auditTarget(page.replay.index, page.replay.events, page.replay.version);
    if (target) audit(target.round, target.trick);
    return;
  }
  const last = page.view?.tricks.at(-1);
  if (last) audit(page.view.round, last.number);
  else say("No trick of this round is finished yet.");
}

// ----- replay -----

async function startReplay() {
  if (page.replay) return;
  try {
    const events = await readLog(matchId, page.token);
    page.replay = { events, index: indexLog(events), version: events.length, view: null };
    if (!analysis.analysed()) await analysis.load(); // if anyone asked for it already
  } catch (problem) {
    problemBanner(problem.message);
    return;
  }
  document.body.classList.add("replaying");
  $("announce").textContent = "";
  $("replay-bar").hidden = false;
  $("toggle-replay").setAttribute("aria-pressed", "true");
  const slider = $("replay-slider");
  slider.max = String(page.replay.events.length);
  const rounds = $("replay-round");
  rounds.replaceChildren(...[...page.replay.index.rounds.keys()]
    .map((r) => new Option(`Round ${r}`, r)));
  await replayTo(page.replay.events.length);
  $("replay-back").focus();
}

function stopReplay() {
  if (!page.replay) return;
  page.replay = null;
  document.body.classList.remove("replaying");
  $("replay-bar").hidden = true;
  $("analysis-decision").replaceChildren();
  $("toggle-replay").setAttribute("aria-pressed", "false");
  if (page.view) show(page.view);
  drain();
}

function fillTricks(round, selected) {
  const taken = page.replay.index.tricks.get(round) || new Map();
  const select = $("replay-trick");
  select.replaceChildren(new Option("\u2014", ""),
    ...[...taken.keys()].map((t) => new Option(`Trick ${t}`, t)));
  select.value = selected ? String(selected) : "";
}

async function replayTo(version) {
  const replay = page.replay;
  if (!replay) return;
  const target = Math.min(Math.max(version, 1), replay.events.length);
  replay.version = target;
  const view = await call("GET", matchPath(matchId, `/replay/${target}`), { token: page.token });
  if (page.replay !== replay || replay.version !== target) return;
  replay.view = view;
  const event = replay.events[target - 1];
  $("title").textContent = `Replay: round ${view.round}`;
  drawSeats(view, view.hands);
  if (event.type === "TrickTaken") {
    const taken = view.tricks.at(-1);
    drawTrick(view, taken.plays, taken.winner);
  } else {
    drawTrick(view, view.trick?.plays || []);
  }
  drawHand(view, { mode: "replay", chosen: new Set(), onCard: () => {} });
  drawScores(view, audit);
  $("moon-choice").hidden = true;
  $("prompt").textContent = "";
  $("replay-event").textContent = `Event ${target} of ${replay.events.length}: `
    + describe(event, view);
  $("replay-slider").value = String(target);
  $("replay-slider").setAttribute("aria-valuetext", `event ${target}`);
  const place = replay.index.place[target];
  if (view.round) $("replay-round").value = String(view.round);
  fillTricks(view.round, place?.round === view.round ? place.trick : null);
  $("replay-audit").disabled = !auditTarget(replay.index, replay.events, target);
  showJudged();
}

// ----- analysis -----

function showJudged() {
  const replay = page.replay;
  if (!replay?.view) return;
  analysis.markTrick(replay.view);
  analysis.markPass(replay.view, replay.version);
  analysis.drawDecision(replay.view, replay.version);
}

function analysisChanged() {
  analysis.drawPanel(page.view);
  showJudged();
}

async function analyse() {
  problemBanner("");
  toggleSidebar(true);
  try {
    await startReplay();
    await analysis.ask();
  } catch (problem) {
    problemBanner(problem.message);
  }
}

const BAD = { n: ["blunder"], b: ["blunder"], m: ["mistake", "blunder"] };

// Jumps the replay to the next (or, with B, the previous) decision of the kind asked.
async function jumpToJudged(key) {
  if (!analysis.analysed()) {
    say("Nothing is analysed yet: choose Analyse first.");
    return;
  }
  await startReplay();
  const from = page.replay.version;
  const target = key === "b" ? analysis.previousWith(from, BAD[key])
    : analysis.nextWith(from, BAD[key]);
  const what = key === "m" ? "mistake or blunder" : "blunder";
  if (target === null) say(`No ${what} ${key === "b" ? "before" : "after"} this event.`);
  else await replayTo(target);
}

function wireReplay() {
  const step = (delta) => page.replay && replayTo(page.replay.version + delta);
  $("toggle-replay").addEventListener("click", () => (page.replay ? stopReplay() : startReplay()));
  $("replay-close").addEventListener("click", stopReplay);
  $("replay-first").addEventListener("click", () => replayTo(1));
  $("replay-last").addEventListener("click", () => replayTo(Infinity));
  $("replay-back").addEventListener("click", () => step(-1));
  $("replay-forward").addEventListener("click", () => step(1));
  $("replay-slider").addEventListener("input", (e) => replayTo(Number(e.target.value)));
  $("replay-round").addEventListener("change", (e) => {
    replayTo(page.replay.index.rounds.get(Number(e.target.value)));
  });
  $("replay-trick").addEventListener("change", (e) => {
    const round = Number($("replay-round").value);
    const version = page.replay.index.tricks.get(round)?.get(Number(e.target.value));
    if (version) replayTo(version);
  });
  $("replay-audit").addEventListener("click", auditLast);
  $("replay-analyse").addEventListener("click", analyse);
  $("end-analyse").addEventListener("click", () => {
    $("end").close();
    analyse();
  });
  $("end-replay").addEventListener("click", () => {
    $("end").close();
    startReplay();
  });
}

// ----- keyboard -----

function moveInHand(key) {
  const buttons = [...document.querySelectorAll("#hand button")];
  if (!buttons.length) return false;
  const now = buttons.indexOf(document.activeElement);
  let next = now < 0 ? 0 : now;
  if (key === "ArrowLeft") next = Math.max(now - 1, 0);
  if (key === "ArrowRight") next = Math.min(now + 1, buttons.length - 1);
  if (key === "Home") next = 0;
  if (key === "End") next = buttons.length - 1;
  for (const button of buttons) button.tabIndex = -1;
  buttons[next].tabIndex = 0;
  buttons[next].focus();
  return true;
}

function focusHand() {
  (document.querySelector("#hand button[tabindex='0']")
    || document.querySelector("#hand button"))?.focus();
}

function toggleSidebar(open = !document.body.classList.contains("sidebar-open")) {
  document.body.classList.toggle("sidebar-open", open);
  $("toggle-sidebar").setAttribute("aria-expanded", String(open));
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (document.querySelector("dialog[open]")) return; // a dialog keeps its own keys
  const typing = event.target.closest?.("input, select, textarea");
  const key = event.key;
  const inHand = Boolean(event.target.closest?.("#hand"));
  if (page.replay && !typing) {
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (key in moves) replayTo(page.replay.version + moves[key]);
    else if (key === "Home") replayTo(1);
    else if (key === "End") replayTo(Infinity);
    else if (key === "Escape") stopReplay();
    if (["ArrowLeft", "ArrowRight", "Home", "End", "Escape"].includes(key)) {
      event.preventDefault();
      return;
    }
  }
  if (inHand && ["ArrowLeft", "ArrowRight", "Home", "End"].includes(key)) {
    if (moveInHand(key)) event.preventDefault();
    return;
  }
  if (typing) return;
  const actions = {
    "?": () => $("help").showModal(),
    s: () => toggleSidebar(),
    r: () => (page.replay ? stopReplay() : startReplay()),
    a: auditLast,
    p: passChosen,
    h: focusHand,
    n: () => jumpToJudged("n"),
    b: () => jumpToJudged("b"),
    m: () => jumpToJudged("m"),
  };
  const action = actions[key.length === 1 ? key.toLowerCase() : key];
  if (action) {
    event.preventDefault();
    action();
  }
}

// ----- start -----

function wire() {
  $("pass").addEventListener("click", passChosen);
  $("toggle-sidebar").addEventListener("click", () => toggleSidebar());
  $("show-help").addEventListener("click", () => $("help").showModal());
  for (const button of document.querySelectorAll("#moon-choice button")) {
    button.addEventListener("click", () => move("/moon", { choice: button.dataset.choice }));
  }
  $("im-back").addEventListener("click", () => move("/back", {}));
  setInterval(tickTurnClock, 1000);
  $("give-up").addEventListener("click", () => {
    if (confirm("Give up the match? It ends with no winner for anyone.")) move("/abandon", {});
  });
  $("copy-link").addEventListener("click", async () => {
    const box = $("seat-link");
    box.value = seatLink(matchId, page.token);
    box.hidden = false;
    box.select();
    try {
      await navigator.clipboard.writeText(box.value);
      say("The link to your seat is copied.");
    } catch {
      say("Copy the link from the box.");
    }
  });
  document.addEventListener("keydown", onKey);
  wireReplay();
  toggleSidebar(matchMedia("(min-width: 1000px)").matches);
}

async function start() {
  wire();
  analysis.setUp(matchId, analysisChanged);
  takeTokenFromFragment();
  page.token = tokens.get(matchId);
  let view;
  try {
    view = await fetchView();
  } catch (problem) {
    problemBanner(problem.status === 404 ? "There is no match with this id."
      : problem.message);
    $("table").hidden = true;
    return;
  }
  show(view);
  if (!isOver(view)) follow();
}

start();
