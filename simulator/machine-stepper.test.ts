/**
 * Decision SC5: the machine stepper runs the subset of xstate the badge machine is written in,
 * and refuses at once a machine that uses more (it would otherwise run it wrongly). That it
 * does what xstate does on the badge machine is `badge-runner.test.ts`'s random histories.
 */
import { describe, expect, it } from 'vitest';
import { assign, createMachine, not, raise, setup } from 'xstate';
import { badgeMachine } from './badge.machine.ts';
import type { MachineLike } from './machine-definition.ts';
import { MachineStepper } from './machine-stepper.ts';

const stepperOf = (machine: unknown) => new MachineStepper<object>(machine as MachineLike);

describe('the machine stepper (SC5)', () => {
  it.each([
    [
      'parallel states',
      createMachine({ type: 'parallel', states: { a: {}, b: {} } }),
      'parallel states',
    ],
    [
      'delayed transitions',
      createMachine({ initial: 'a', states: { a: { after: { 100: 'b' } }, b: {} } }),
      'delayed transitions',
    ],
    [
      'wildcard events',
      createMachine({ initial: 'a', states: { a: { on: { '*': 'b' } }, b: {} } }),
      'wildcard events',
    ],
    [
      're-entering transitions',
      createMachine({
        initial: 'a',
        states: { a: { on: { GO: { target: 'a', reenter: true } } } },
      }),
      're-enter',
    ],
    [
      'guard combinators',
      createMachine({
        initial: 'a',
        states: { a: { on: { GO: { guard: not(() => true), target: 'b' } } }, b: {} },
      }),
      'only guards that are functions',
    ],
    [
      'history states',
      createMachine({ initial: 'a', states: { a: {}, h: { type: 'history' } } }),
      'history states',
    ],
  ])('refuses a machine with %s, naming it', (_what, machine, named) => {
    expect(() => stepperOf(machine)).toThrow(named);
  });

  it('refuses an xstate action it does not run when it reads the machine, not when it runs', () => {
    const machine = setup({}).createMachine({
      initial: 'a',
      states: { a: { on: { GO: { actions: raise({ type: 'AGAIN' }) } } } },
    });
    expect(() => stepperOf(machine)).toThrow("does not run xstate's xstate.raise action");
  });

  it('steps a small machine as xstate does: assigns seen by later actions, eventless moves', () => {
    const seen: number[] = [];
    const machine = setup({
      types: { context: {} as { n: number }, events: {} as { type: 'GO' } },
      actions: { note: ({ context }) => seen.push(context.n) },
    }).createMachine({
      context: { n: 0 },
      initial: 'a',
      states: {
        a: {
          on: {
            GO: { target: 'b', actions: [assign({ n: ({ context }) => context.n + 1 }), 'note'] },
          },
        },
        b: { always: { target: 'c', actions: assign({ n: ({ context }) => context.n * 10 }) } },
        c: { entry: 'note' },
      },
    });
    const stepper = stepperOf(machine);
    const start = stepper.start(undefined, undefined);
    const out = stepper.step(start.leaf, start.context, { type: 'GO' }, undefined);
    for (const action of out.actions) action.exec?.(action.info, action.params);
    expect(stepper.valueOf(out.leaf)).toBe('c');
    expect(out.context).toEqual({ n: 10 });
    expect(seen).toEqual([1, 10]);
  });

  it('finds the badge state a saved value names, and says which value it does not know', () => {
    const stepper = stepperOf(badgeMachine);
    expect(stepper.valueOf(stepper.leafOf({ online: 'playing' }))).toEqual({ online: 'playing' });
    expect(stepper.valueOf(stepper.leafOf('offline'))).toBe('offline');
    expect(() => stepper.leafOf({ online: 'dancing' })).toThrow('no state {"online":"dancing"}');
    expect(() => stepper.leafOf('online')).toThrow('not an atomic state');
    expect(() => stepper.leafOf('valueOf')).toThrow('no state "valueOf"');
  });
});
