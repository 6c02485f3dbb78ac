// Drawing a view of the match: the seats around the table, the trick in the middle, the
// reader's hand and the sidebar. Everything drawn comes from the view the API gave this
// reader; the page decides no rule.
import { $, make } from "./dom.js";
import { cardWords, drawFace, tableCard } from "./cards.js";
import { BOT_WORDS, PASS_WORDS, WHY_BARRED, capital, plural, rulesInWords, seatLabel,
  seatPlace } from "./words.js";

// Who sits at the bottom: the reader's seat, or seat 1 for a spectator.
export function bottomSeat(view) {
  return view.you ? view.you.seat : 0;
}

// Where a seat sits, as a direction from the middle: the bottom seat first, then clockwise
// (on screen: bottom, left, top, right with four).
export function direction(view, seat) {
  const count = view.seats.length;
  const step = (seat - bottomSeat(view) + count) % count;
  const angle = Math.PI / 2 + (step * 2 * Math.PI) / count;
  return { x: Math.cos(angle), y: Math.sin(angle) };
}

function place(element, where) {
  element.style.setProperty("--x", where.x.toFixed(3));
  element.style.setProperty("--y", where.y.toFixed(3));
}

// Cards a seat has left, from what it has played this round (hand sizes are public).
function cardsLeft(view, seat) {
  const perHand = view.deck.hand_size;
  const played = [...view.tricks.flatMap((t) => t.plays), ...(view.trick?.plays || [])]
    .filter((p) => p.seat === seat).length;
  return view.round === 0 ? 0 : perHand - played;
}

function seatStatus(view, seat) {
  if (view.status === "finished" || view.status === "abandoned") {
    return view.winner === seat ? "winner" : "";
  }
  if (view.status === "passing") {
    return view.seats_passed.includes(seat) ? "passed" : "choosing a pass";
  }
  if (view.status === "moon_choice" && view.moon_shooter === seat) return "choosing the moon";
  return view.turn === seat ? "to play" : "";
}

export function drawSeats(view, hands = null) {
  const seats = $("seats");
  seats.replaceChildren();
  view.seats.forEach((info, seat) => {
    const box = make("section", "seat");
    box.dataset.seat = seat;
    box.setAttribute("aria-label", seatLabel(view, seat));
    place(box, direction(view, seat));
    const status = seatStatus(view, seat);
    box.classList.toggle("on-turn", view.to_act.includes(seat));
    box.classList.toggle("me", view.you?.seat === seat);
    box.classList.toggle("winner", status === "winner");
    const name = make("span", "seat-name", info.name);
    const meta = [capital(seatPlace(seat))];
    if (info.bot) meta.push(BOT_WORDS[info.bot]);
    const away = view.away?.includes(seat);
    box.classList.toggle("away", Boolean(away));
    if (away) meta.push("away: moves made for them");
    if (view.dealer === seat && view.round > 0) meta.push("dealer");
    const points = `${view.scores.total[seat]} total, ${view.scores.round[seat]} this round`;
    box.append(name, make("span", "seat-meta", meta.join(" \u00b7 ")),
      make("span", "seat-points", points), make("span", "seat-status", status));
    const due = view.deadlines?.[String(seat)];
    if (due) box.append(seatClock(due));
    const shown = hands?.[seat];
    if (shown && seat !== view.you?.seat) {
      const row = make("span", "open-hand");
      row.setAttribute("aria-label", `${info.name}'s hand`);
      for (const card of shown) row.append(tableCard(card));
      box.append(row);
    } else if (seat !== view.you?.seat) {
      const left = cardsLeft(view, seat);
      const backs = make("span", "backs");
      backs.setAttribute("role", "img");
      backs.setAttribute("aria-label", plural(left, "card"));
      backs.style.setProperty("--count", String(left));
      box.append(backs);
    }
    seats.append(box);
  });
}

// A seat's turn clock: the time left as text and as a bar, ticked by tickClocks.
function seatClock(due) {
  const clock = make("span", "seat-clock");
  clock.dataset.due = due;
  const bar = make("span", "clock-bar");
  bar.setAttribute("aria-hidden", "true");
  clock.append(make("span", "clock-text"), bar);
  tickClock(clock, Date.now());
  return clock;
}

export const WARN_SECONDS = 10;

function tickClock(clock, now) {
  const left = Math.max(0, Math.ceil((Date.parse(clock.dataset.due) - now) / 1000));
  const text = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`;
  clock.querySelector(".clock-text").textContent = text;
  clock.classList.toggle("short", left <= WARN_SECONDS);
  const total = Number(clock.dataset.total || left || 1);
  clock.dataset.total = String(total);
  clock.style.setProperty("--left", String(Math.min(1, left / total)));
  return left;
}

// Every clock on the table, ticked; the seconds left on each seat's clock.
export function tickClocks(now = Date.now()) {
  const left = new Map();
  for (const clock of document.querySelectorAll(".seat-clock")) {
    left.set(Number(clock.closest(".seat").dataset.seat), tickClock(clock, now));
  }
  return left;
}

// The trick in the middle: each card lies towards the seat that played it.
export function drawTrick(view, plays, winner = null) {
  const centre = $("centre");
  centre.replaceChildren();
  centre.classList.remove("collecting");
  for (const play of plays) {
    const card = tableCard(play.card);
    card.classList.add("played");
    card.setAttribute("aria-label", `${view.seats[play.seat].name}: ${cardWords(play.card)}`);
    card.dataset.seat = play.seat;
    place(card, direction(view, play.seat));
    card.classList.toggle("winning", winner === play.seat);
    centre.append(card);
  }
  centre.dataset.count = String(plays.length);
}

// Sweeps the trick towards its winner's seat.
export function collectTrick(view, winner) {
  const centre = $("centre");
  const where = direction(view, winner);
  centre.style.setProperty("--wx", where.x.toFixed(3));
  centre.style.setProperty("--wy", where.y.toFixed(3));
  centre.classList.add("collecting");
  // A count of the sweeps drawn: a sweep lasts under half a second, so whoever checks that
  // tricks are swept away reads this rather than catching one in the act.
  centre.dataset.sweeps = String(Number(centre.dataset.sweeps || 0) + 1);
}

// The reader's hand. `mode` is "pass", "play", "replay" or "wait"; `chosen` the cards
// lifted for a pass.
export function drawHand(view, { mode, chosen, onCard, cards = null }) {
  const area = $("hand-area");
  const hand = $("hand");
  const you = view.you;
  area.hidden = !you;
  if (!you) return;
  const focused = document.activeElement?.closest?.("#hand") ? document.activeElement : null;
  const focusIndex = focused ? [...hand.children].indexOf(focused.closest(".hand-card")) : -1;
  hand.replaceChildren();
  const shown = cards || you.hand;
  const received = new Set(view.tricks.length === 0 && view.status === "playing"
    ? you.received || [] : []);
  shown.forEach((card, index) => {
    const slot = make("span", "hand-card");
    const button = make("button", "");
    button.type = "button";
    drawFace(button, card);
    button.setAttribute("aria-label", cardWords(card));
    const tip = make("span", "tip");
    tip.id = `why-${card}`;
    tip.setAttribute("role", "tooltip");
    let usable = false;
    if (mode === "pass") {
      usable = true;
      button.setAttribute("aria-pressed", String(chosen.has(card)));
      button.classList.toggle("lifted", chosen.has(card));
    } else if (mode === "play") {
      usable = you.legal.includes(card);
      const why = you.illegal?.[card];
      if (why) tip.textContent = WHY_BARRED[why] || why;
    }
    if (received.has(card)) {
      button.classList.add("received");
      const note = make("span", "visually-hidden", "received in the pass");
      note.id = `got-${card}`;
      slot.append(note);
    }
    const described = [tip.textContent ? tip.id : null, received.has(card) ? `got-${card}` : null]
      .filter(Boolean).join(" ");
    if (described) button.setAttribute("aria-describedby", described);
    if (!usable) button.setAttribute("aria-disabled", "true");
    button.tabIndex = -1;
    button.addEventListener("click", () => usable && onCard(card));
    slot.append(button);
    if (tip.textContent) slot.append(tip);
    hand.append(slot);
    button.dataset.index = index;
  });
  const buttons = [...hand.querySelectorAll("button")];
  const target = buttons[Math.min(Math.max(focusIndex, 0), buttons.length - 1)];
  if (target) target.tabIndex = 0;
  if (focusIndex >= 0 && target) target.focus({ preventScroll: true });
  const pass = $("pass");
  const passing = mode === "pass";
  pass.hidden = !passing;
  pass.disabled = !passing || chosen.size !== 3;
  pass.textContent = `Pass three cards ${PASS_WORDS[view.pass_direction] || ""}`.trim();
  $("pass-count").textContent = passing ? `${chosen.size} of 3 chosen` : "";
  $("pass-count").hidden = !passing;
}

export function drawScores(view, onAudit) {
  const table = $("scores");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  head.append(make("th", "", "Round"));
  for (const seat of view.seats) {
    const th = make("th", "", seat.name);
    th.scope = "col";
    head.append(th);
  }
  const body = table.createTBody();
  view.scores.history.forEach((points, index) => {
    const row = body.insertRow();
    const th = make("th", "", String(index + 1));
    th.scope = "row";
    row.append(th);
    for (const value of points) row.insertCell().textContent = String(value);
  });
  if (!["finished", "abandoned"].includes(view.status) && view.round > 0) {
    const row = body.insertRow();
    row.className = "now";
    const th = make("th", "", `${view.round} so far`);
    th.scope = "row";
    row.append(th);
    for (const value of view.scores.round) row.insertCell().textContent = String(value);
  }
  const foot = table.createTFoot().insertRow();
  const th = make("th", "", "Total");
  th.scope = "row";
  foot.append(th);
  for (const value of view.scores.total) foot.insertCell().textContent = String(value);

  const list = $("round-tricks");
  list.replaceChildren();
  for (const trick of view.tricks) {
    const item = make("li", "");
    const words = `Trick ${trick.number}: ${view.seats[trick.winner].name} took it, `
      + plural(trick.points, "point");
    item.append(make("span", "", words));
    const audit = make("button", "link", "Audit");
    audit.type = "button";
    audit.setAttribute("aria-label", `Audit trick ${trick.number} of round ${view.round}`);
    audit.addEventListener("click", () => onAudit(view.round, trick.number));
    item.append(audit);
    list.append(item);
  }
  if (!view.tricks.length) list.append(make("li", "hint", "No trick taken yet."));
  $("rules-words").textContent = `Rules: ${rulesInWords(view.rules)}.`;
}

// What the match waits for, said to this reader.
export function promptFor(view, chosen) {
  const you = view.you;
  const name = (seat) => view.seats[seat].name;
  if (view.status === "finished") return `${name(view.winner)} wins the match.`;
  if (view.status === "abandoned") return "The match was abandoned.";
  if (view.status === "passing") {
    if (you && !view.seats_passed.includes(you.seat)) {
      return `Choose three cards to pass ${PASS_WORDS[view.pass_direction]}`
        + ` (${chosen.size} of 3 chosen).`;
    }
    return `Waiting for the passes: ${view.seats_passed.length} of ${view.seats.length}`
      + " have passed.";
  }
  if (view.status === "moon_choice") {
    if (you?.seat === view.moon_shooter) return "You shot the moon: choose how it counts.";
    return `${name(view.moon_shooter)} shot the moon and chooses how it counts.`;
  }
  if (view.turn === null) return "";
  if (you?.seat === view.turn) {
    return view.trick?.plays.length ? "Your turn: play a card." : "Your lead: play a card.";
  }
  return `${name(view.turn)} to play.`;
}
