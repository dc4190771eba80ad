/**
 * The alert lifecycle's named transitions: what `step` (lifecycle.ts) does to one task on one
 * device or to a whole task, each in words a tester knows and with the spec's rule or the
 * decision rows (docs/decisions.md) it comes from. `step` labels every sub-transition it takes
 * with one of these ids, so this is the one list: `run --coverage` reports which a suite
 * exercised (decision CV2), and the property tests check that every one can be taken.
 */
const LIFECYCLE_TRANSITIONS = {
  played: { label: 'alert posted: plays on the device at once', rule: 'spec' },
  queued: { label: 'alert posted: waits behind one of its name on the device', rule: 'L7' },
  repeated: { label: 'not acknowledged: plays again 30 s later', rule: 'spec, L1' },
  acknowledged: { label: 'acknowledged by a device', rule: 'spec' },
  'spoke-on-ack': { label: 'on_ack spoken to the device that acknowledged', rule: 'spec' },
  'duplicate-ack-ignored': { label: 'second acknowledgement by a device ignored', rule: 'L5' },
  'ack-after-end-ignored': { label: 'acknowledgement after the end ignored', rule: 'L6' },
  'ack-of-queued-refused': {
    label: 'acknowledgement of an alert still queued on the device refused',
    rule: 'L8',
  },
  'tap-with-nothing-playing': { label: 'tap with nothing playing does nothing', rule: 'L9' },
  'quorum-all': { label: 'quorum met: every device acknowledged', rule: 'spec' },
  'quorum-some': { label: 'quorum met before every device acknowledged', rule: 'spec' },
  'timed-out': { label: 'timed out with no acknowledgement', rule: 'L1, L2' },
  'timed-out-short-of-quorum': { label: 'timed out after some acknowledgements', rule: 'L11' },
  cancelled: { label: 'cancelled by DELETE', rule: 'L3' },
  'delete-of-ended-refused': { label: 'DELETE of an ended task refused (409)', rule: 'L4' },
  'spoke-on-quorum': { label: 'on_quorum spoken at the end', rule: 'spec' },
  'spoke-on-timeout': { label: 'on_timeout spoken at the end', rule: 'spec' },
  'spoke-where-queued': {
    label: 'on_quorum/on_timeout spoken where the alert was still queued',
    rule: 'L10',
  },
  released: {
    label: 'device done with an alert: the next of its name plays at once',
    rule: 'L7',
  },
  'not-released-at-its-timeout': {
    label: 'queued alert released at its own timeout instant does not play',
    rule: 'L1a',
  },
  'dropped-mid-alert': { label: 'device dropped while an alert played on it', rule: 'D2' },
  'replayed-on-return': {
    label: 'device back while alerts play on it: they play again at once',
    rule: 'D3, MB2',
  },
} as const satisfies Record<string, { label: string; rule: string }>;

export type LifecycleTransition = keyof typeof LIFECYCLE_TRANSITIONS;

/** Every named transition, in the order above. */
export function lifecycleTransitions(): LifecycleTransition[] {
  return Object.keys(LIFECYCLE_TRANSITIONS) as LifecycleTransition[];
}

/** `quorum-some: quorum met before every device acknowledged (spec)`: how a report names one. */
export function describeTransition(id: LifecycleTransition): string {
  const { label, rule } = LIFECYCLE_TRANSITIONS[id];
  return `${id}: ${label} (${rule})`;
}
