// The start page: set up a match (you, and bots or other people), or open one.
import { call, newKey, seatLink, tablePath, tokens } from "./api.js";
import { capital, seatPlace } from "./words.js";

const COUNTS = [3, 4, 5, 6]; // players a table may seat
let SEATS = 4;
const KINDS = [
  ["heuristic", "Heuristic bot"], ["expert", "Expert bot"], ["random", "Random bot"],
  ["person", "Another person"],
];
const SEAT_NAMES = ["Ada", "Basil", "Cleo", "Dora", "Emil", "Fern"]; // seats you do not name

function seatRow(seat) {
  const row = document.createElement("div");
  row.className = "seat-row";
  const place = document.createElement("span");
  place.className = "place";
  place.textContent = capital(seatPlace(seat));
  const you = document.createElement("label");
  you.className = "you-radio";
  const radio = document.createElement("input");
  radio.type = "radio";
  radio.name = "you";
  radio.value = String(seat);
  radio.checked = seat === 0;
  radio.setAttribute("aria-label", `I sit at ${seatPlace(seat)}`);
  you.append(radio, " me");
  const name = document.createElement("input");
  name.name = `name-${seat}`;
  name.maxLength = 32;
  name.required = true;
  name.autocomplete = "off";
  name.value = seat === 0 ? "" : SEAT_NAMES[seat];
  name.setAttribute("aria-label", `Name at ${seatPlace(seat)}`);
  const kind = document.createElement("select");
  kind.name = `kind-${seat}`;
  kind.setAttribute("aria-label", `Who plays ${seatPlace(seat)}`);
  for (const [value, text] of KINDS) kind.add(new Option(text, value));
  row.append(place, you, name, kind);
  return row;
}

// The rows for the count chosen. What was typed or chosen at a seat that stays is kept.
function drawSeats() {
  const form = document.getElementById("new-match");
  const kept = {};
  for (const element of form.elements) {
    if (/^(name|kind)-\d$/.test(element.name)) kept[element.name] = element.value;
  }
  const you = form.elements.you ? Number(form.elements.you.value) : 0;
  const rows = document.getElementById("seat-rows");
  const dealer = document.getElementById("first-dealer");
  const dealerWas = Number(dealer.value || 0);
  rows.replaceChildren();
  dealer.replaceChildren();
  for (let seat = 0; seat < SEATS; seat += 1) {
    const row = seatRow(seat);
    for (const field of ["name", "kind"]) {
      const value = kept[`${field}-${seat}`];
      if (value !== undefined) row.querySelector(`[name=${field}-${seat}]`).value = value;
    }
    row.querySelector("input[type=radio]").checked = seat === (you < SEATS ? you : 0);
    rows.append(row);
    dealer.add(new Option(capital(seatPlace(seat)) + (seat === 0 ? " (default)" : ""), seat));
  }
  dealer.value = String(dealerWas < SEATS ? dealerWas : 0);
  syncYou();
}

function drawCounts() {
  const select = document.getElementById("seat-count");
  for (const count of COUNTS) {
    select.add(new Option(`${count} players${count === 4 ? " (classic)" : ""}`, count));
  }
  select.value = String(SEATS);
  select.addEventListener("change", () => {
    SEATS = Number(select.value);
    drawSeats();
  });
  document.getElementById("seat-rows").addEventListener("change", syncYou);
}

// The seat marked "me" is a person whose name is asked for; it is never a bot. A seat left
// without a name when "me" moves away gets its usual one back.
function syncYou() {
  const form = document.getElementById("new-match");
  const you = Number(form.elements.you.value);
  for (let seat = 0; seat < SEATS; seat += 1) {
    const kind = form.elements[`kind-${seat}`];
    const name = form.elements[`name-${seat}`];
    kind.disabled = seat === you;
    kind.hidden = seat === you;
    name.placeholder = seat === you ? "Your name" : "Name";
    if (seat !== you && !name.value.trim()) name.value = SEAT_NAMES[seat];
  }
}

function rulesOf(form) {
  const rules = {
    end_score: Number(form.elements.end_score.value),
    moon: form.elements.moon.value,
    tie_break: form.elements.tie_break.value,
    first_dealer: Number(form.elements.first_dealer.value),
    // A person who runs out of time has the move made for them, as the heuristic bot would.
    turn_seconds: form.elements.turn_seconds.value ? Number(form.elements.turn_seconds.value)
      : null,
  };
  for (const name of ["queen_breaks_hearts", "points_on_first_trick", "shoot_the_sun",
    "jack_of_diamonds"]) rules[name] = form.elements[name].checked;
  return rules;
}

function seatsOf(form) {
  const you = Number(form.elements.you.value);
  const seats = [];
  for (let seat = 0; seat < SEATS; seat += 1) {
    const name = form.elements[`name-${seat}`].value.trim();
    const kind = form.elements[`kind-${seat}`].value;
    seats.push(seat === you || kind === "person" ? { name } : { name, bot: kind });
  }
  return { you, seats };
}

function showError(id, message) {
  const box = document.getElementById(id);
  box.textContent = message;
  box.hidden = !message;
}

async function create(event) {
  event.preventDefault();
  const form = event.target;
  showError("form-error", "");
  const { you, seats } = seatsOf(form);
  const empty = seats.findIndex((s) => !s.name);
  if (empty >= 0) {
    showError("form-error", `Give ${seatPlace(empty)} a name.`);
    form.elements[`name-${empty}`].focus();
    return;
  }
  const body = { seats, rules: rulesOf(form) };
  if (form.elements.client_seed.value) body.client_seed = form.elements.client_seed.value;
  const button = document.getElementById("create");
  button.disabled = true;
  try {
    const created = await call("POST", "/v1/matches", {
      body, headers: { "Idempotency-Key": newKey() },
    });
    const id = created.id;
    for (const [seat, token] of Object.entries(created.tokens)) {
      if (Number(seat) === you) tokens.set(id, token);
    }
    const others = Object.entries(created.tokens).filter(([seat]) => Number(seat) !== you);
    if (others.length) showShared(id, others, created);
    else location.assign(tablePath(id));
  } catch (problem) {
    showError("form-error", [problem.message, ...(problem.fields || []).map(fieldWords)]
      .join(". "));
  } finally {
    button.disabled = false;
  }
}

// "seats.0.name" -> "Seat 1's name", so the person knows which box to change.
function fieldWords([path, text]) {
  const seat = path.match(/^seats\.(\d+)\.(\w+)$/);
  if (seat) return `${capital(seatPlace(Number(seat[1])))}'s ${seat[2]}: ${text}`;
  return `${path.replaceAll("_", " ")}: ${text}`;
}

function showShared(id, others, created) {
  const list = document.getElementById("shared-links");
  list.replaceChildren();
  for (const [seat, token] of others) {
    const item = document.createElement("li");
    const label = document.createElement("label");
    label.textContent = `${created.seats[seat].name} at ${seatPlace(Number(seat))}: `;
    const link = document.createElement("input");
    link.readOnly = true;
    link.value = seatLink(id, token);
    link.addEventListener("focus", () => link.select());
    label.append(link);
    item.append(label);
    list.append(item);
  }
  document.getElementById("go-to-seat").href = tablePath(id);
  document.getElementById("new-match").hidden = true;
  document.getElementById("shared-seats").hidden = false;
}

// An id, a table link (with or without a seat's token) or an API link.
function open(event) {
  event.preventDefault();
  const text = event.target.elements.where.value.trim();
  let id = text;
  let token = null;
  try {
    const url = new URL(text, location.origin);
    const found = url.pathname.match(/^\/(?:m|v1\/matches)\/([^/]+)/);
    if (found) id = decodeURIComponent(found[1]);
    token = new URLSearchParams(url.hash.slice(1)).get("token");
  } catch {
    // not a URL: taken as an id
  }
  if (!id || id.includes("/")) {
    showError("open-error", "That is neither a match id nor a link to a match.");
    return;
  }
  if (token) tokens.set(id, token);
  location.assign(tablePath(id));
}

drawCounts();
drawSeats();
document.getElementById("new-match").addEventListener("submit", create);
document.getElementById("open-match").addEventListener("submit", open);
