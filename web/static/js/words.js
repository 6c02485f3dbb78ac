// What the page says about seats, rules and events, in words.

// Seats are named by number at every count, from 1, clockwise. The reader is drawn at the
// bottom whichever seat it holds, so a compass name would say North of the seat at the bottom.
export function seatLabel(view, seat) {
  return `${view.seats[seat].name} (seat ${seat + 1})`;
}

export function seatPlace(seat) {
  return `seat ${seat + 1}`;
}

export function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const WHY_BARRED = {
  must_lead_two_of_clubs: "The first trick is led with the two of clubs.",
  must_follow_suit: "You must follow the suit that was led while you hold it.",
  hearts_not_broken: "Hearts cannot be led until they are broken, unless you hold only hearts.",
  no_points_on_first_trick:
    "No hearts and no queen of spades on the first trick, unless you hold nothing else.",
};

export const PASS_WORDS = {
  left: "to the left", right: "to the right", across: "across", hold: "nowhere (hold)",
};

export const BOT_WORDS = { random: "random bot", heuristic: "heuristic bot", expert: "expert bot" };

export const MOON_WORDS = {
  add_to_others: "Add 26 to every other seat",
  subtract_from_self: "Subtract 26 from my own score",
};

export const RULE_WORDS = {
  end_score: (v) => `the match ends at ${v} points`,
  queen_breaks_hearts: (v) => (v ? "the queen of spades breaks hearts" : null),
  points_on_first_trick: (v) => (v ? "points may fall on the first trick" : null),
  moon: (v) => ({ add_to_others: "a moon adds 26 to the others",
    subtract_from_self: "a moon subtracts 26 from the shooter",
    shooter_choice: "the moon's shooter chooses" })[v],
  shoot_the_sun: (v) => (v ? "shooting the sun counts" : null),
  jack_of_diamonds: (v) => (v ? "the jack of diamonds scores \u221210" : null),
  tie_break: (v) => (v === "last_round" ? "a tie is broken by the last round" : null),
  first_dealer: () => null,
  turn_seconds: (v) => (v ? `each person has ${v} seconds a move` : null),
};

export function rulesInWords(rules) {
  return Object.entries(rules)
    .map(([name, value]) => RULE_WORDS[name]?.(value))
    .filter(Boolean)
    .join("; ");
}

export function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
