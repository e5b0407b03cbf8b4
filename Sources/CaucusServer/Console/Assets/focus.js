// Keeping the keyboard's place across a re-render: a view rebuilt after an event replaces the
// element that had focus, which sends focus (and a screen reader) back to the top of the page.
// The element is found again by what identifies it (its test id and data attributes) and
// focused without scrolling; when it is gone, its card takes focus, never the page's <body>.

import { focusCard } from "./feedback.js";

function identity(element) {
  if (!element || element === document.body || !element.dataset?.testid) return null;
  const selector = [element.tagName.toLowerCase(), ...Object.entries(element.dataset).map(([key, value]) =>
    `[data-${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}="${CSS.escape(value)}"]`)].join("");
  // A control inside a card that names its room or person: include that, so two rooms' Rename are told apart.
  const owner = element.parentElement?.closest("[data-room], [data-user-name], [data-user]");
  const ownerSelector = owner ? `[data-testid="${CSS.escape(owner.dataset.testid ?? "")}"]${owner.dataset.room != null ? `[data-room="${CSS.escape(owner.dataset.room)}"]` : ""}${owner.dataset.userName != null ? `[data-user-name="${CSS.escape(owner.dataset.userName)}"]` : ""}` : null;
  return { selector, ownerSelector, value: "value" in element ? element.value : null };
}

function findAgain(before) {
  const scope = before.ownerSelector ? document.querySelector(before.ownerSelector) : document;
  return scope?.querySelector(before.selector) ?? null;
}

// Pickers whose choice waits for a button ("Add", "Move ticked"): a redraw keeps what was chosen.
// (A move picker acts on its change, so it starts empty again.)
const KEPT_PICKERS = '.view select[data-testid]:not([data-testid="user-move-select"])';

/** Runs `render`, then gives focus back to the element that had it, or to its replacement,
 *  and puts back what was chosen in pickers that wait for a button. */
export function keepingFocus(render) {
  const active = document.activeElement;
  const before = identity(active);
  // The card it was in: focus goes there when the control is gone (a removed person's row).
  const card = active?.closest?.(".view section[data-testid], .view section[aria-labelledby], .view section.card");
  const chosen = [...document.querySelectorAll(KEPT_PICKERS)].filter((select) => select.value).map((select) => [identity(select), select.value]);
  render();
  for (const [picker, value] of chosen) {
    const again = picker && findAgain(picker);
    if (again && again.value === "" && [...again.options].some((option) => option.value === value)) again.value = value;
  }
  if (!before || active.isConnected) return;
  const again = findAgain(before) ?? document.querySelector(before.selector);
  if (again) again.focus({ preventScroll: true });
  // Gone, or no longer focusable (disabled): its card.
  if (document.activeElement !== again && card?.isConnected) focusCard(card);
}

/** The top bar stays on screen (sticky): whatever takes focus, or is scrolled to, is kept
 *  below it, however tall it is (it wraps on a phone), so Start is never focused under it. */
export function keepFocusClearOfTopBar() {
  const bar = document.querySelector(".topbar");
  if (!bar) return;
  const update = () => { document.documentElement.style.scrollPaddingTop = `${Math.ceil(bar.getBoundingClientRect().height) + 8}px`; };
  new ResizeObserver(update).observe(bar);
  update();
}

/** After joining (the join form is gone with the button that had focus), focus goes to the
 *  session's title in the top bar, not to `<body>`. */
export function focusAfterJoining() {
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected && !active.closest("[hidden]")) return;
  const title = document.querySelector('[data-testid="session-title"]');
  if (!title) return;
  if (!title.hasAttribute("tabindex")) title.setAttribute("tabindex", "-1");
  title.focus({ preventScroll: true });
}
