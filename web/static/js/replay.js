// Replay: the match drawn as it stood after any event, stepping through the log or jumping
// to a round or a trick. Hands show only as the reader may see them now.
import { call, matchPath } from "./api.js";
import { cardWords } from "./cards.js";
import { MOON_WORDS, PASS_WORDS, plural } from "./words.js";

// Every event of the log (as this reader may see it), page by page.
export async function readLog(matchId, token) {
  const events = [];
  let path = matchPath(matchId, "/events?after=0&limit=1000");
  while (path) {
    const page = await call("GET", path, { token });
    events.push(...page.events);
    path = page.next;
  }
  return events;
}

// Where each round and trick starts and ends in the log, and which trick each event is in.
export function indexLog(events) {
  const rounds = new Map(); // round -> version of its deal
  const tricks = new Map(); // round -> Map(trick -> version that took it)
  const place = []; // per version: { round, trick } of the trick it belongs to, or null
  let round = 0;
  let taken = 0;
  for (const event of events) {
    const data = event.data;
    if (event.type === "RoundDealt") {
      round = data.round;
      taken = 0;
      rounds.set(round, event.version);
      tricks.set(round, new Map());
    }
    let where = null;
    if (event.type === "CardPlayed") where = { round, trick: taken + 1 };
    if (event.type === "TrickTaken") {
      taken = data.trick;
      tricks.get(data.round).set(data.trick, event.version);
      where = { round: data.round, trick: data.trick };
    }
    place[event.version] = where;
  }
  return { rounds, tricks, place };
}

export function describe(event, view) {
  const data = event.data;
  const name = (seat) => view.seats[seat]?.name ?? `seat ${seat + 1}`;
  switch (event.type) {
    case "MatchCreated": return "The match was created.";
    case "RoundDealt":
      return `Round ${data.round} was dealt by ${name(data.dealer)}; pass `
        + `${PASS_WORDS[data.pass_direction]}.`;
    case "PassChosen": return `${name(data.seat)} chose a pass.`;
    case "PassesExchanged": return "The passes were exchanged.";
    case "CardPlayed": return `${name(data.seat)} played the ${cardWords(data.card)}.`;
    case "TrickTaken":
      return `${name(data.winner)} took trick ${data.trick}, ${plural(data.points, "point")}.`;
    case "MoonShot": return `${name(data.seat)} shot the moon.`;
    case "MoonChosen": return `${name(data.seat)} chose: ${MOON_WORDS[data.choice]}.`;
    case "RoundScored": return `Round ${data.round} was scored: ${data.scores.join(", ")}.`;
    case "MatchEnded": return `${name(data.winner)} won the match.`;
    case "MatchAbandoned": return "The match was abandoned.";
    default: return event.type;
  }
}

// The trick an audit opens from `version`: the one its event belongs to once taken, or the
// last trick taken before it in the same round.
export function auditTarget(index, events, version) {
  const here = index.place[version];
  if (here && index.tricks.get(here.round)?.has(here.trick)) return here;
  for (let v = version; v >= 1; v -= 1) {
    const event = events[v - 1];
    if (event.type === "RoundDealt") return null;
    if (event.type === "TrickTaken") return { round: event.data.round, trick: event.data.trick };
  }
  return null;
}
