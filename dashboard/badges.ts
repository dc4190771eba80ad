/**
 * The badge cards, virtualised: cards have one fixed height, so the grid knows where each row
 * is without measuring, and only the rows in view (and one either side) exist in the page.
 * 1,000 badges cost as much as the thirty on screen; a card's size never changes as events
 * stream in, so nothing jumps. A card shown again is updated in place (focus stays put).
 */
import type { LiveDevice } from '../protocol/live-stream.schema.ts';
import { el, setText } from './dom.ts';

const CARD_HEIGHT = 188;
const GAP = 8;
const MIN_CARD_WIDTH = 230;

export interface BadgeActions {
  tap(deviceId: string): void;
  setOnline(deviceId: string, online: boolean): void;
}

export class BadgeGrid {
  #ids: string[] = [];
  #devices: ReadonlyMap<string, LiveDevice> = new Map();
  #notes: ReadonlyMap<string, string> = new Map();
  readonly #cards = new Map<string, HTMLElement>();

  constructor(
    private readonly scroll: HTMLElement,
    private readonly sizer: HTMLElement,
    private readonly grid: HTMLElement,
    private readonly actions: BadgeActions,
  ) {
    scroll.addEventListener('scroll', () => this.render(), { passive: true });
    new ResizeObserver(() => this.render()).observe(scroll);
  }

  /** The devices to show, in order (after the filters), and what is known of each. */
  show(
    ids: string[],
    devices: ReadonlyMap<string, LiveDevice>,
    notes: ReadonlyMap<string, string>,
  ): void {
    this.#ids = ids;
    this.#devices = devices;
    this.#notes = notes;
    this.render();
  }

  render(): void {
    const width = this.scroll.clientWidth;
    const columns = Math.max(1, Math.floor((width + GAP) / (MIN_CARD_WIDTH + GAP)));
    const rowHeight = CARD_HEIGHT + GAP;
    const rows = Math.ceil(this.#ids.length / columns);
    this.sizer.style.height = `${rows * rowHeight}px`;
    const first = Math.max(0, Math.floor(this.scroll.scrollTop / rowHeight) - 1);
    const last = Math.min(
      rows,
      Math.ceil((this.scroll.scrollTop + this.scroll.clientHeight) / rowHeight) + 1,
    );
    this.grid.style.gridTemplateColumns = `repeat(${columns}, minmax(0, 1fr))`;
    this.grid.style.transform = `translateY(${first * rowHeight}px)`;
    const visible = this.#ids.slice(first * columns, last * columns);
    const keep = new Set(visible);
    for (const [id, card] of this.#cards) {
      if (!keep.has(id)) {
        card.remove();
        this.#cards.delete(id);
      }
    }
    const cards = visible.map((id) => {
      let card = this.#cards.get(id);
      if (!card) {
        card = this.#newCard(id);
        this.#cards.set(id, card);
      }
      const device = this.#devices.get(id);
      if (device) fillCard(card, device, this.#notes.get(id) ?? '');
      return card;
    });
    // Only moves what is out of place: a focused button stays in the page.
    cards.forEach((card, i) => {
      if (this.grid.children[i] !== card)
        this.grid.insertBefore(card, this.grid.children[i] ?? null);
    });
  }

  #newCard(id: string): HTMLElement {
    const talk = el('button', { type: 'button', class: 'talk', text: 'Talk' });
    const toggle = el('button', { type: 'button', class: 'switch', text: 'Take offline' });
    talk.addEventListener('click', () => this.actions.tap(id));
    toggle.addEventListener('click', () =>
      this.actions.setOnline(id, !(this.#devices.get(id)?.online ?? false)),
    );
    return el(
      'li',
      { class: 'card', 'data-device': id },
      el('header', {}, el('strong', { class: 'user' }), el('span', { class: 'online' })),
      el('p', { class: 'ids' }),
      el('p', { class: 'groups' }),
      el('p', { class: 'state' }),
      el('p', { class: 'heard' }),
      el('p', { class: 'meta' }),
      el('p', { class: 'note', role: 'status' }),
      el('div', { class: 'actions' }, talk, toggle),
    );
  }
}

const HEARD_VERB = { play: 'Plays', broadcast: 'Broadcasts', speak: 'Says' } as const;
/** A broadcast or speech has no stop: once its badge is idle again, it is told as past. */
const HEARD_PAST = { play: 'Played', broadcast: 'Broadcast', speak: 'Said' } as const;

/** What the card says a badge hears: nothing is not a mode, it is said plainly (UI14). */
function heardText(device: LiveDevice): string {
  const heard = device.heard;
  if (!heard) return 'Nothing playing';
  if (!device.online) return `Last sent: “${heard.text}”`;
  return `${(device.state === 'idle' ? HEARD_PAST : HEARD_VERB)[heard.kind]}: “${heard.text}”`;
}

/**
 * Where a badge is as a person reads it (UX1): its address as written, else its position in
 * degrees north or south and east or west, and how near it is when the badge says.
 */
function placeText(location: NonNullable<LiveDevice['location']>): string {
  if (location.address) return location.address;
  const degrees = (value: number, positive: string, negative: string) =>
    `${Math.abs(value).toFixed(4)}° ${value < 0 ? negative : positive}`;
  const near = location.accuracy === undefined ? '' : ` (±${Math.round(location.accuracy)} m)`;
  return `${degrees(location.lat, 'N', 'S')}, ${degrees(location.long, 'E', 'W')}${near}`;
}

function fillCard(card: HTMLElement, device: LiveDevice, note: string): void {
  const part = (name: string) => card.querySelector(`.${name}`)!;
  // The state a badge last reported holds only while it is connected (UI13).
  const state = device.online ? device.state : device.state === null ? null : 'offline';
  card.dataset.state = state ?? 'unknown';
  card.dataset.online = String(device.online);
  setText(part('user'), device.user);
  setText(
    part('online'),
    device.online ? (device.responsive ? 'online' : 'online, not answering') : 'offline',
  );
  setText(part('ids'), device.device_id);
  setText(part('groups'), device.groups.length ? device.groups.join(', ') : 'no group');
  setText(part('state'), `State: ${state ?? 'never connected'}`);
  setText(part('heard'), heardText(device));
  part('heard').classList.toggle('quiet', !device.heard || !device.online);
  const battery =
    device.battery_level === null
      ? 'battery unknown'
      : `battery ${device.battery_level}%${device.battery_status === 'charging' ? ' (charging)' : ''}`;
  const where = device.location ? ` · ${placeText(device.location)}` : '';
  setText(part('meta'), `${battery}${where}`);
  setText(part('note'), note);
  const [talk, toggle] = card.querySelectorAll('button');
  talk!.setAttribute('aria-label', `Talk: tap the talk button of ${device.user}`);
  setText(toggle!, device.online ? 'Take offline' : 'Bring back');
  toggle!.setAttribute(
    'aria-label',
    `${device.online ? 'Take offline' : 'Bring back'}: ${device.user}`,
  );
  toggle!.disabled = !device.run_by_stub;
  toggle!.title = device.run_by_stub
    ? ''
    : 'Only badges the stub runs (badge-sim stub --badges) can be switched from here';
}
