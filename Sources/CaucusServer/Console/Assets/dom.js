// Small DOM helpers: building elements without a framework, and formatting times.

/** Makes an element. `attrs` keys: `testid`, `class`, `dataset`, `onclick`-style listeners, others as attributes. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else if (key === "testid") element.dataset.testid = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (key === "class") element.className = value;
    else if (key === "value") element.value = value;
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Replaces an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

export const byTestId = (id, root = document) => root.querySelector(`[data-testid="${id}"]`);

/** "4:05" or "1:02:03" for a number of milliseconds (never negative). */
export function formatDuration(milliseconds) {
  const total = Math.max(0, Math.ceil(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

export function formatClock(milliseconds) {
  return new Date(milliseconds).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
