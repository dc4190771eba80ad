/**
 * The model against cases worked by hand from docs/decisions.md (and the catalogue scenarios
 * that show them), before it is trusted to predict anything else.
 */
import { describe, expect, it } from 'vitest';
import { predict } from './alert.model.ts';
import { badgeConfig, serviceConfig } from './configs.ts';
import type { ModelInput } from './lifecycle-state.ts';

const s = (seconds: number) => seconds * 1000;
const brief = (
  events: { type: string; task: string; at: number; device?: string; status?: string }[],
) => events.map((e) => [e.type, e.task, e.at / 1000, e.device ?? e.status ?? ''].join(' '));
const alerts = (heard: { kind: string; at: number }[]) =>
  heard.filter((h) => h.kind === 'alert').map((h) => h.at / 1000);

describe('the alert model', () => {
  it('L1: a 300 s alert nobody acknowledges plays 10 times and times out at 300 s', () => {
    const config = serviceConfig(['Ada'], { notification: () => 'Fire' });
    const p = predict(config, [{ type: 'POST', at: 0, task: 'a' }], s(400));
    expect(alerts(p.heard[0]!)).toEqual([0, 30, 60, 90, 120, 150, 180, 210, 240, 270]);
    expect(brief(p.events)).toEqual(['start a 0 ', 'timed_out a 300 ', 'end a 300 normal']);
  });

  it('L1a: the second of two same-name alerts, released as both time out, never plays', () => {
    const config = badgeConfig(['Omar Haddad'], {
      notification: (t) => (t === 'first' ? 'Restock ward three' : 'Restock ward four'),
    });
    const p = predict(
      config,
      [
        { type: 'POST', at: 0, task: 'first', name: 'restock', timeout: 60 },
        { type: 'POST', at: 0, task: 'second', name: 'restock', timeout: 60 },
      ],
      s(120),
    );
    expect(brief(p.events)).toEqual([
      'start first 0 ',
      'start second 0 ',
      'timed_out first 60 ',
      'end first 60 normal',
      'timed_out second 60 ',
      'end second 60 normal',
    ]);
    expect(p.heard[0]!.map((h) => `${h.task}@${h.at / 1000}`)).toEqual(['first@0', 'first@30']);
    expect(p.states).toEqual(['idle']);
  });

  it('L7, D5: same-name alerts are serial on each badge (catalogue same-name-alerts-are-serial)', () => {
    const config = badgeConfig(['Lena Ortiz', 'Omar Haddad'], {
      notification: (t) => (t === 'first' ? 'Restock ward one' : 'Restock ward two'),
    });
    const p = predict(
      config,
      [
        { type: 'POST', at: 0, task: 'first', name: 'restock' },
        { type: 'POST', at: s(10), task: 'second', name: 'restock' },
        { type: 'TAP', at: s(20), device: 0 },
        { type: 'TAP', at: s(65), device: 1 },
        { type: 'TAP', at: s(70), device: 0 },
        { type: 'TAP', at: s(80), device: 1 },
      ],
      s(200),
    );
    expect(brief(p.events)).toEqual([
      'start first 0 ',
      'start second 10 ',
      'acknowledged first 20 Lena Ortiz',
      'acknowledged first 65 Omar Haddad',
      'end first 65 normal',
      'acknowledged second 70 Lena Ortiz',
      'acknowledged second 80 Omar Haddad',
      'end second 80 normal',
    ]);
    expect(p.heard[0]!.map((h) => `${h.task}@${h.at / 1000}`)).toEqual([
      'first@0',
      'second@20',
      'second@50',
    ]);
    expect(p.heard[1]!.map((h) => `${h.task}@${h.at / 1000}`)).toEqual([
      'first@0',
      'first@30',
      'first@60',
      'second@65',
    ]);
    expect(p.tasks.map((t) => [t.outcome, t.acks])).toEqual([
      ['quorum', 2],
      ['quorum', 2],
    ]);
  });

  it('D2, D3: a badge that drops misses the plays and hears the alert again on its return', () => {
    const config = badgeConfig(['Lena Ortiz', 'Omar Haddad'], {
      notification: () => 'Delivery at dock',
    });
    const p = predict(
      config,
      [
        { type: 'POST', at: 0, task: 'delivery' },
        { type: 'TAP', at: s(5), device: 0 },
        { type: 'DROP', at: s(40), device: 1 },
        { type: 'RETURN', at: s(100), device: 1 },
        { type: 'TAP', at: s(140), device: 1 },
      ],
      s(240),
    );
    expect(alerts(p.heard[1]!)).toEqual([0, 30, 100, 130]);
    expect(
      alerts(p.sent[1]!.map((x) => ({ kind: x.type === 'play' ? 'alert' : x.type, at: x.at }))),
    ).toEqual([0, 30, 60, 90, 100, 130]);
    expect(alerts(p.heard[0]!)).toEqual([0]);
    expect(brief(p.events).at(-1)).toBe('end delivery 140 normal');
  });

  it('D9: a tap while the badge is offline is lost', () => {
    const config = badgeConfig(['Ada'], { notification: () => 'Fire' });
    const p = predict(
      config,
      [
        { type: 'POST', at: 0, task: 'a', timeout: 60 },
        { type: 'DROP', at: s(10), device: 0 },
        { type: 'TAP', at: s(20), device: 0 },
      ],
      s(100),
    );
    expect(brief(p.events)).toEqual(['start a 0 ', 'timed_out a 60 ', 'end a 60 normal']);
    expect(p.states).toEqual(['offline']);
  });

  it('L3, L4: a cancel ends with status cancelled and speaks nothing; a second DELETE answers 409', () => {
    const config = badgeConfig(['Ada', 'Ben'], {
      notification: () => 'Fire',
      onTimeout: 'Nobody',
      onQuorum: 'Done',
    });
    const inputs: ModelInput[] = [
      { type: 'POST', at: 0, task: 'a' },
      { type: 'DELETE', at: s(10), task: 'a' },
      { type: 'DELETE', at: s(20), task: 'a' },
    ];
    const p = predict(config, inputs, s(400));
    expect(brief(p.events)).toEqual(['start a 0 ', 'end a 10 cancelled']);
    expect(p.deletes.map((d) => d.status)).toEqual([204, 409]);
    expect(p.heard.map((h) => h.map((x) => x.kind))).toEqual([['alert'], ['alert']]);
    expect(p.sent[0]!.map((x) => `${x.type}:${x.cause ?? ''}`)).toEqual([
      'play:',
      'stop:cancelled',
    ]);
  });

  it('L11, L10: timed_out with some acknowledgements; on_timeout spoken where the alert was queued', () => {
    const config = serviceConfig(['Ada', 'Ben'], {
      notification: (t) => t,
      onTimeout: 'Nobody came',
    });
    const p = predict(
      config,
      [
        { type: 'POST', at: 0, task: 'a', name: 'n', timeout: 60 },
        { type: 'POST', at: 0, task: 'b', name: 'n', timeout: 40 },
        { type: 'TAP', at: s(5), device: 0 },
      ],
      s(100),
    );
    expect(brief(p.events)).toEqual([
      'start a 0 ',
      'start b 0 ',
      'acknowledged a 5 Ada',
      'timed_out b 40 ',
      'end b 40 normal',
      'timed_out a 60 ',
      'end a 60 normal',
    ]);
    // Ben never heard b (queued behind a) but is told it timed out.
    expect(p.heard[1]!.map((h) => `${h.kind}:${h.task}@${h.at / 1000}`)).toEqual([
      'alert:a@0',
      'alert:a@30',
      'speech:b@40',
      'speech:a@60',
    ]);
  });

  it('L9, D5: a tap acknowledges what the wearer hears; a quorum of one ends at the first tap', () => {
    const config = badgeConfig(['Ada', 'Ben'], {
      notification: (t) => `Alert ${t}`,
      onQuorum: 'Covered',
    });
    const p = predict(
      config,
      [
        { type: 'POST', at: 0, task: 'x', name: 'x', quorum: 1 },
        { type: 'POST', at: 0, task: 'y', name: 'y', quorum: 1 },
        { type: 'TAP', at: s(5), device: 1 },
        { type: 'TAP', at: s(6), device: 1 },
      ],
      s(60),
    );
    expect(brief(p.events)).toEqual([
      'start x 0 ',
      'start y 0 ',
      'acknowledged y 5 Ben',
      'end y 5 normal',
      'acknowledged x 6 Ben',
      'end x 6 normal',
    ]);
    // y was queued behind x on the badge: heard 0.3 s + 65 ms a character later.
    expect(p.heard[0]!.map((h) => `${h.task}@${h.at}`)).toEqual([
      'x@0',
      'y@755',
      'y@5000',
      'x@6000',
    ]);
  });

  it("MB1: timers due at one instant fire in the order they were set: a repeat set before another alert was posted comes before that alert's timeout", () => {
    const config = serviceConfig(['Ada'], { notification: (t) => t, onTimeout: 'Nobody came' });
    const p = predict(
      config,
      [
        { type: 'POST', at: 0, task: 'a', name: 'x', timeout: 90 },
        { type: 'POST', at: 0, task: 'b', name: 'x', timeout: 30 },
      ],
      s(31),
    );
    // a's repeat timer was set by its play at 0 s, before b (queued behind a) was posted.
    expect(p.sent[0]!.filter((x) => x.at === s(30)).map((x) => `${x.type}:${x.task}`)).toEqual([
      'play:a',
      'speak:b',
    ]);
  });
});
