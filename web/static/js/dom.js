// The two helpers every module that draws uses.

export const $ = (id) => document.getElementById(id);

// An element with a class and text (text always as text: names come from players).
export function make(tag, className, text) {
  const element = document.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}
