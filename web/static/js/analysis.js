// The analysis at the table: asked for from the end screen or the replay, followed live as
// the server judges each decision, and shown beside the replay: a verdict mark on each card
// played, the options of the decision on show, a summary per seat and a chart of each seat's
// loss through the match, drawn here as SVG.
import { $, make } from "./dom.js";
import { call, matchPath, newKey } from "./api.js";
import { cardWords, cardsInWords, tableCard } from "./cards.js";
import { MOON_WORDS, capital, plural } from "./words.js";

const POLL_MS = 1000;
const SVG = "http://www.w3.org/2000/svg";
// The verdicts, worst first, as a mark on the card and in words.
export const VERDICTS = {
  blunder: { mark: "??", words: "a blunder" },
  mistake: { mark: "?", words: "a mistake" },
  inaccuracy: { mark: "?!", words: "an inaccuracy" },
  best: { mark: "\u2713", words: "the best move" },
  forced: { mark: "=", words: "forced: the only legal move" },
};
// Each seat's line in the chart differs by its dash as well as its colour.
const LINES = [
  { colour: "#1f5fbf", dash: "" }, { colour: "#b3161b", dash: "6 3" },
  { colour: "#17603a", dash: "2 3" }, { colour: "#7a4eb0", dash: "9 3 2 3" },
  { colour: "#9a5b00", dash: "12 4" }, { colour: "#333333", dash: "1 2" },
];

const state = {
  matchId: null,
  report: null, // the last analysis read
  byVersion: new Map(), // version -> decision
  byPlay: new Map(), // "round/card" -> decision
  timer: null,
  onChange: () => {},
};

export function moveWords(move) {
  if (typeof move === "string" && move.length === 2) return `the ${cardWords(move)}`;
  if (Array.isArray(move)) return cardsInWords(move);
  return MOON_WORDS[move]?.toLowerCase() ?? String(move);
}

const points = (x) => `${x > 0 ? "+" : x < 0 ? "\u2212" : ""}${Math.abs(x).toFixed(2)}`;

export function setUp(matchId, onChange) {
  state.matchId = matchId;
  state.onChange = onChange;
}

export const analysed = () => state.report;

// Reads the analysis if someone has asked for it already; follows it while it is computed.
export async function load() {
  try {
    take(await call("GET", matchPath(state.matchId, "/analysis")));
  } catch (problem) {
    if (problem.status !== 404) throw problem;
  }
}

// Asks for the analysis (asking twice changes nothing) and follows it until it is done.
export async function ask() {
  $("analysis").hidden = false;
  $("analysis-status").textContent = "Asking for the analysis\u2026";
  take(await call("POST", matchPath(state.matchId, "/analysis"), {
    body: {}, headers: { "Idempotency-Key": newKey() },
  }));
}

function take(report) {
  state.report = report;
  state.byVersion = new Map();
  state.byPlay = new Map();
  for (const round of report.rounds) {
    for (const decision of round.decisions) {
      state.byVersion.set(decision.version, { ...decision, round: round.round });
      if (decision.kind === "play") {
        state.byPlay.set(`${round.round}/${decision.chosen}`, { ...decision, round: round.round });
      }
    }
  }
  clearTimeout(state.timer);
  if (report.status !== "done") state.timer = setTimeout(poll, POLL_MS);
  $("analysis").hidden = false;
  state.onChange(report);
}

async function poll() {
  try {
    take(await call("GET", matchPath(state.matchId, "/analysis")));
  } catch {
    state.timer = setTimeout(poll, POLL_MS * 3); // the server is away: try again later
  }
}

// ----- the panel -----

export function drawPanel(view) {
  const report = state.report;
  if (!report) return;
  const { done, total } = report.progress;
  const bar = $("analysis-progress");
  bar.max = Math.max(total, 1);
  bar.value = done;
  bar.setAttribute("aria-valuetext", `${done} of ${total} decisions judged`);
  $("analysis-status").textContent = report.status === "done"
    ? `Every decision of ${plural(report.up_to_round, "round")} judged (${total} decisions).`
      + (report.up_to_round === 0 ? " No round was over when it was asked for." : "")
    : `Judging: ${done} of ${total} decisions, rounds 1 to ${report.up_to_round}\u2026`;
  drawSummary(view, report);
  drawChart(view, report);
}

function drawSummary(view, report) {
  const table = $("analysis-seats");
  const head = make("tr");
  // The verdicts' marks head their columns (a narrow panel); a screen reader hears words.
  const columns = [["Seat"], ["Mean loss"], ["Blunders", "??"], ["Mistakes", "?"],
    ["Inaccuracies", "?!"]];
  for (const [title, mark] of columns) {
    const th = make("th", "", mark ? undefined : title);
    if (mark) {
      const shown = make("span", "", mark);
      shown.setAttribute("aria-hidden", "true");
      shown.title = title;
      th.append(shown, make("span", "visually-hidden", title));
    }
    th.scope = "col";
    head.append(th);
  }
  const rows = report.seats.map((s) => {
    const row = make("tr");
    const name = make("th", "", view.seats[s.seat].name);
    name.scope = "row";
    row.append(name, make("td", "", s.mean_loss.toFixed(2)), make("td", "", String(s.blunders)),
      make("td", "", String(s.mistakes)), make("td", "", String(s.inaccuracies)));
    return row;
  });
  table.replaceChildren(make("caption", "",
    "Mean loss per decision in points; ?? blunders, ? mistakes, ?! inaccuracies"), head, ...rows);
}

// The chart: each seat's loss added up decision by decision through the match, with a line
// at each round's start.
function drawChart(view, report) {
  const svg = $("analysis-chart");
  // Sized for the side panel, where it is drawn about as wide as this, so text stays legible.
  const width = 360;
  const height = 210;
  const pad = { left: 30, right: 84, top: 12, bottom: 22 };
  const decisions = report.rounds.flatMap((r) => r.decisions.map((d) => ({ ...d, round: r.round })));
  const totals = view.seats.map(() => [0]);
  for (const d of decisions) {
    const line = totals[d.seat];
    line.push(line.at(-1) + d.loss);
  }
  const most = Math.max(1, ...totals.map((t) => t.at(-1)));
  const longest = Math.max(1, ...totals.map((t) => t.length - 1));
  const x = (i) => pad.left + (i / longest) * (width - pad.left - pad.right);
  const y = (v) => height - pad.bottom - (v / most) * (height - pad.top - pad.bottom);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  const axis = (x1, y1, x2, y2, cls) => svg.append(shape("line", { x1, y1, x2, y2, class: cls }));
  axis(pad.left, y(0), width - pad.right, y(0), "axis");
  axis(pad.left, y(0), pad.left, y(most), "axis");
  svg.append(text(pad.left - 4, y(most) + 4, most.toFixed(1), "end"),
    text(pad.left - 4, y(0) + 4, "0", "end"),
    text((pad.left + width - pad.right) / 2, height - 5, "decisions, in order",
      "middle"));
  // Round starts, measured in the first seat's decisions (every seat decides as often).
  let count = 0;
  for (const round of report.rounds) {
    const first = round.decisions.filter((d) => d.seat === 0).length;
    if (round.round > 1) axis(x(count), y(0), x(count), y(most), "round-line");
    svg.append(text(x(count) + 3, y(most) + 10, `R${round.round}`, "start", "round-label"));
    count += first;
  }
  const labels = labelHeights(totals.map((t) => y(t.at(-1)) + 4), 12);
  totals.forEach((line, seat) => {
    const style = LINES[seat % LINES.length];
    const path = line.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    svg.append(shape("path", {
      d: path.join(" "), fill: "none", stroke: style.colour, "stroke-width": 2.5,
      "stroke-dasharray": style.dash, class: "loss-line", "data-seat": seat,
    }));
    svg.append(text(x(line.length - 1) + 5, labels[seat],
      `${view.seats[seat].name} ${line.at(-1).toFixed(1)}`, "start", "line-label", style.colour));
  });
  const words = totals.map((t, s) => `${view.seats[s].name} ${t.at(-1).toFixed(1)}`);
  svg.setAttribute("aria-label", `Loss added up through the match: ${words.join(", ")} points.`);
}

// Where each line's label goes: at its line's end, moved apart so that none overlaps.
function labelHeights(wanted, gap) {
  const order = wanted.map((h, i) => [h, i]).sort((a, b) => a[0] - b[0]);
  const placed = [];
  let last = -Infinity;
  for (const [h, i] of order) {
    last = Math.max(h, last + gap);
    placed[i] = last;
  }
  return placed;
}

function shape(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== "") element.setAttribute(name, String(value));
  }
  return element;
}

function text(x, y, words, anchor, cls = "", fill = "") {
  const element = shape("text", { x, y, "text-anchor": anchor, class: cls, fill });
  element.textContent = words;
  return element;
}

// ----- the replay -----

// What the decision recorded by event `version` was worth, in words, with its options.
export function drawDecision(view, version) {
  const box = $("analysis-decision");
  const decision = state.byVersion.get(version);
  if (!state.report) return;
  if (!decision) {
    box.replaceChildren(make("p", "hint", state.report.status === "done"
      ? "No decision at this event. N jumps to the next blunder."
      : "No decision at this event, or not judged yet."));
    return;
  }
  const name = view.seats[decision.seat].name;
  const verdict = VERDICTS[decision.verdict];
  const head = make("p", `verdict-line verdict-${decision.verdict}`);
  head.append(make("span", "verdict-mark", verdict.mark), ` ${sentence(name, decision)}`);
  head.querySelector(".verdict-mark").setAttribute("aria-hidden", "true");
  box.replaceChildren(head, optionList(decision));
}

function sentence(name, decision) {
  const verdict = VERDICTS[decision.verdict];
  const did = { play: "played", pass: "passed", moon: "chose" }[decision.kind];
  const best = moveWords(decision.best);
  const worse = decision.loss > 0
    ? `, ${decision.loss.toFixed(2)} points worse than the best, ${best}` : "";
  return `${capital(name)} ${did} ${moveWords(decision.chosen)}: ${verdict.words}${worse}.`;
}

function optionList(decision) {
  const list = make("ol", "options");
  list.setAttribute("aria-label", "Options, best first, with the expected points");
  for (const option of decision.options) {
    const chosen = JSON.stringify(option.move) === JSON.stringify(decision.chosen);
    const item = make("li", chosen ? "chosen" : "",
      `${capital(moveWords(option.move))}: ${points(option.expected)}`
      + (chosen ? " (chosen)" : ""));
    list.append(item);
  }
  return list;
}

// Marks each card of the trick on show with its verdict; hovering or focusing a card shows
// its options, which a screen reader reads as the card's description.
export function markTrick(view) {
  if (!state.report) return;
  for (const card of document.querySelectorAll("#centre .played")) {
    const decision = state.byPlay.get(`${view.round}/${card.dataset.card}`);
    if (!decision || card.classList.contains("judged")) continue;
    const verdict = VERDICTS[decision.verdict];
    card.classList.add("judged", `verdict-${decision.verdict}`);
    const mark = make("span", "verdict-mark", verdict.mark);
    mark.setAttribute("aria-hidden", "true");
    const tip = make("span", "tip");
    tip.id = `tip-${decision.version}`;
    tip.append(make("span", "", sentence(view.seats[decision.seat].name, decision)),
      optionList(decision));
    card.append(mark, tip);
    card.tabIndex = 0;
    card.setAttribute("aria-label", `${card.getAttribute("aria-label")}, ${verdict.words}`);
    card.setAttribute("aria-describedby", tip.id);
  }
}

// At a pass, the three cards passed lie beside the passer (they have left its hand by then),
// marked with the verdict.
export function markPass(view, version) {
  const decision = state.byVersion.get(version);
  if (!decision || decision.kind !== "pass") return;
  const box = document.querySelector(`#seats .seat[data-seat="${decision.seat}"]`);
  if (!box || box.querySelector(".passed-cards")) return;
  const verdict = VERDICTS[decision.verdict];
  const row = make("span", "open-hand passed-cards");
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", `${view.seats[decision.seat].name} passed, ${verdict.words}`);
  for (const card of decision.chosen) {
    const shown = tableCard(card);
    shown.classList.add("judged-pass", `verdict-${decision.verdict}`);
    shown.setAttribute("aria-label", `${cardWords(card)}, passed: ${verdict.words}`);
    row.append(shown);
  }
  box.append(row);
}

// The version of the next decision after `version` with one of `verdicts`, or null.
export function nextWith(version, verdicts) {
  const found = [...state.byVersion.values()]
    .filter((d) => d.version > version && verdicts.includes(d.verdict))
    .sort((a, b) => a.version - b.version);
  return found.length ? found[0].version : null;
}

export function previousWith(version, verdicts) {
  const found = [...state.byVersion.values()]
    .filter((d) => d.version < version && verdicts.includes(d.verdict))
    .sort((a, b) => b.version - a.version);
  return found.length ? found[0].version : null;
}
