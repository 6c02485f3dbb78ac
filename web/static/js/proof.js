// The fairness proof: the commitment shown from the first deal, and at the end the revealed
// seed, its hash computed in this browser, and the server's integrity report.
import { make } from "./dom.js";
import { call, matchPath } from "./api.js";
import { seatLabel } from "./words.js";

function commitmentLines(view) {
  const lines = [];
  const commitment = make("p", "");
  commitment.append("Seed commitment (SHA-256 of the server's secret seed, fixed before the"
    + " first deal): ", make("code", "hash", view.seed_commitment));
  lines.push(commitment);
  if (view.given_decks) {
    lines.push(make("p", "hint", `The first ${view.given_decks} round(s) use decks given at`
      + " creation; later rounds are shuffled from the seeds."));
  }
  return lines;
}

export function showCommitment(view) {
  const box = document.getElementById("fairness");
  if (box.dataset.version === String(view.version)) return;
  box.dataset.version = String(view.version);
  box.replaceChildren(...commitmentLines(view));
  if (view.server_seed) {
    const seed = make("p", "");
    seed.append("Revealed seed: ", make("code", "hash", view.server_seed));
    box.append(seed);
  }
}

async function sha256Hex(hex) {
  const bytes = new Uint8Array(hex.match(/../g).map((pair) => parseInt(pair, 16)));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function check(label, ok, detail = "") {
  const item = make("li", ok === null ? "" : ok ? "ok" : "bad");
  const mark = ok === null ? "\u2013" : ok ? "\u2713" : "\u2717";
  item.append(make("span", "mark", mark), ` ${label}`);
  item.dataset.ok = String(ok);
  if (detail) item.append(make("span", "hint", ` ${detail}`));
  return item;
}

export async function showProof(view, matchId, token) {
  const title = document.getElementById("end-title");
  title.textContent = view.status === "finished"
    ? `${seatLabel(view, view.winner)} wins` : "The match was abandoned";
  const totals = document.getElementById("end-totals");
  totals.replaceChildren();
  const head = totals.createTHead().insertRow();
  for (const text of ["Seat", "Total"]) head.append(make("th", "", text));
  const body = totals.createTBody();
  const order = view.scores.total.map((total, seat) => ({ total, seat }))
    .sort((a, b) => a.total - b.total);
  for (const { total, seat } of order) {
    const row = body.insertRow();
    row.insertCell().textContent = seatLabel(view, seat);
    row.insertCell().textContent = String(total);
    if (seat === view.winner) row.className = "winner";
  }
  const proof = document.getElementById("end-proof");
  proof.replaceChildren(make("h3", "", "The proof of a fair deal"), ...commitmentLines(view));
  const seed = make("p", "");
  seed.append("Revealed seed: ", make("code", "hash", view.server_seed));
  const checks = make("ul", "checks");
  proof.append(seed, checks);
  try {
    const hashed = await sha256Hex(view.server_seed);
    checks.append(check("The revealed seed hashes to the commitment (checked in this browser)",
      hashed === view.seed_commitment));
  } catch {
    checks.append(check("This browser cannot hash here (it needs a secure origin)", null));
  }
  try {
    const report = await call("GET", matchPath(matchId, "/verify"), { token });
    checks.append(
      check("Hash chain intact", report.chain_ok, `${report.events} events`),
      check("The whole log replays to the same tricks and scores", report.replay_ok),
      check("Every deal recomputed from the seeds (or the given decks)", report.deals_ok),
      check("The server's integrity report", report.ok),
    );
  } catch (problem) {
    checks.append(check(`The integrity report could not be read: ${problem.message}`, false));
  }
}
