// Cards in words and on the table. Suits are told apart by their symbol and name, never by
// colour alone.

export const SUITS = {
  C: { name: "clubs", symbol: "\u2663", red: false },
  D: { name: "diamonds", symbol: "\u2666", red: true },
  S: { name: "spades", symbol: "\u2660", red: false },
  H: { name: "hearts", symbol: "\u2665", red: true },
};

const RANKS = {
  2: ["two", "2"], 3: ["three", "3"], 4: ["four", "4"], 5: ["five", "5"], 6: ["six", "6"],
  7: ["seven", "7"], 8: ["eight", "8"], 9: ["nine", "9"], T: ["ten", "10"],
  J: ["jack", "J"], Q: ["queen", "Q"], K: ["king", "K"], A: ["ace", "A"],
};

export const suitOf = (card) => SUITS[card[1]];

export function cardWords(card) {
  return `${RANKS[card[0]][0]} of ${suitOf(card).name}`;
}

export function cardsInWords(cards) {
  return cards.map(cardWords).join(", ");
}

// The face of a card: its rank and suit symbol, drawn inside `element`.
export function drawFace(element, card) {
  element.dataset.card = card;
  element.classList.add("card", `suit-${suitOf(card).name}`);
  element.classList.toggle("red", suitOf(card).red);
  element.replaceChildren();
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = RANKS[card[0]][1];
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = suitOf(card).symbol;
  suit.setAttribute("aria-hidden", "true");
  rank.setAttribute("aria-hidden", "true");
  element.append(rank, suit);
}

// A card as it lies on the table: an image-like element named by the card in words.
export function tableCard(card) {
  const element = document.createElement("span");
  drawFace(element, card);
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", cardWords(card));
  return element;
}
