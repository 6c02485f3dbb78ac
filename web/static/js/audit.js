// The trick audit: who held what before each play, what was allowed, why each other card
// was not, why the winner won, and whether the hash chain holds up to the trick.
import { make } from "./dom.js";
import { call, matchPath } from "./api.js";
import { cardWords, tableCard } from "./cards.js";
import { WHY_BARRED, plural, seatLabel } from "./words.js";

function cardRow(cards, label) {
  const row = make("span", "card-row");
  row.setAttribute("role", "list");
  row.setAttribute("aria-label", label);
  for (const card of cards) {
    const item = tableCard(card);
    item.setAttribute("role", "listitem");
    row.append(item);
  }
  if (!cards.length) row.append(make("span", "hint", "none"));
  return row;
}

function playBlock(view, audit, play, index) {
  const block = make("section", "audit-play");
  const who = seatLabel(view, play.seat);
  const title = make("h3", "", `${index + 1}. ${who} played ${cardWords(play.card)}`);
  block.append(title);
  if (play.seat === audit.winner) block.classList.add("winning");
  const facts = make("dl", "");
  const add = (term, value) => {
    facts.append(make("dt", "", term));
    const dd = make("dd", "");
    dd.append(value);
    facts.append(dd);
  };
  if (play.hand_before) {
    add("Hand before", cardRow(play.hand_before, `${who}'s hand before the play`));
    add("Allowed", cardRow(play.legal, "cards allowed"));
    const barred = make("ul", "barred");
    const byRule = new Map();
    for (const [card, rule] of Object.entries(play.illegal)) {
      byRule.set(rule, [...(byRule.get(rule) || []), card]);
    }
    for (const [rule, cards] of byRule) {
      const item = make("li", "");
      item.dataset.rule = rule;
      item.append(make("span", "", WHY_BARRED[rule] || rule), cardRow(cards, WHY_BARRED[rule]));
      barred.append(item);
    }
    if (!Object.keys(play.illegal).length) barred.append(make("li", "hint", "nothing barred"));
    add("Not allowed", barred);
  }
  add("Event", make("span", "", `version ${play.version}`));
  add("Hash", make("code", "hash", play.hash));
  block.append(facts);
  return block;
}

export function drawAudit(view, audit) {
  const body = document.getElementById("audit-body");
  body.replaceChildren();
  document.getElementById("audit-title").textContent =
    `Round ${audit.round}, trick ${audit.trick}`;
  const summary = make("ul", "audit-summary");
  const say = (text, className = "") => summary.append(make("li", className, text));
  say(`Led by ${seatLabel(view, audit.leader)}, in ${audit.led_suit}.`);
  if (audit.winner !== null) {
    say(`${seatLabel(view, audit.winner)} won it, with ${plural(audit.points, "point")}.`);
  }
  if (audit.why_winner) say(audit.why_winner);
  say(audit.hearts_broken_before ? `Hearts were already broken (in trick ${audit.hearts_broken_in}).`
    : audit.hearts_broken_in === audit.trick ? "Hearts were broken in this trick."
      : "Hearts were not broken yet.");
  say(audit.chain_ok ? "Hash chain checked up to this trick: intact."
    : "Hash chain checked up to this trick: BROKEN.", audit.chain_ok ? "ok" : "bad");
  if (!audit.round_over) {
    say("The round is still being played: the hands and the allowed cards are shown once it"
      + " is over.", "hint");
  }
  body.append(summary);
  audit.plays.forEach((play, index) => body.append(playBlock(view, audit, play, index)));
}

export async function openAudit(view, matchId, token, round, trick) {
  const dialog = document.getElementById("audit");
  try {
    const audit = await call("GET", matchPath(matchId, `/rounds/${round}/tricks/${trick}`),
      { token });
    drawAudit(view, audit);
  } catch (problem) {
    const body = document.getElementById("audit-body");
    body.replaceChildren(make("p", "problem", problem.message));
  }
  if (!dialog.open) dialog.showModal();
}
