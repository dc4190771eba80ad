/** Small DOM helpers: text always goes in as text (never HTML), so a user named `<img …>` is shown, not run. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`dashboard: no #${id} in the page`);
  return found as T;
}

type Child = Node | string | null | undefined | false;

/** An element with attributes (`text` sets its text) and children (strings become text). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'text') element.textContent = String(value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) if (child) element.append(child);
  return element;
}

/** Sets an element's text only when it changed: no needless layout while events stream. */
export function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** Replaces the options of a select, keeping the chosen value when it is still offered. */
export function setOptions(select: HTMLSelectElement, options: [string, string][]): void {
  const chosen = select.value;
  const wanted = JSON.stringify(options);
  if (select.dataset.options === wanted) return;
  select.dataset.options = wanted;
  select.replaceChildren(...options.map(([value, label]) => el('option', { value, text: label })));
  if (options.some(([value]) => value === chosen)) select.value = chosen;
}

/** `2026-01-01T00:05:30.000000Z` → `00:05:30` (the day too when it is not `today`). */
export function clockTime(iso: string, today?: string): string {
  const day = iso.slice(0, 10);
  const time = iso.slice(11, 19);
  return today === undefined || day === today ? time : `${day} ${time}`;
}

/** Whole seconds as `4:05` or `1:02:03`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  const [h, m, sec] = hms as [number, number, number];
  return h > 0
    ? `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`
    : `${m}:${String(sec).padStart(2, '0')}`;
}
