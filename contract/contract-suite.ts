/**
 * The contract suite: vitest tests of every endpoint of the service as the spec writes it
 * (paths, headers, status codes, body shapes), and, unless told to skip them, of the
 * decisions badge-sim takes where the spec is silent (docs/decisions.md). It uses only the
 * public interfaces, never the stub's control API, so it runs against the original service
 * too; there, a failing decision check is a difference between the stub and the original.
 *
 *   import { contractSuite, contractTargetFromEnv } from 'badge-sim/contract';
 *   contractSuite('qa', () => contractTargetFromEnv());
 */
import { beforeAll, describe } from 'vitest';
import { decisionsContract } from './contract-decisions.ts';
import { notificationContract } from './contract-notification.ts';
import { ContractSession } from './contract-session.ts';
import type { ContractTarget } from './contract-target.ts';
import { triggerContract } from './contract-trigger.ts';

// One describe per capability, each in its module: the notification interface, the token,
// trigger and device interface, and the decisions; contract-session.ts is what they share.
export function contractSuite(
  name: string,
  target: () => ContractTarget | Promise<ContractTarget>,
): void {
  describe(`contract: ${name}`, () => {
    const session = new ContractSession();
    beforeAll(() => session.start(target));
    notificationContract(session);
    triggerContract(session);
    decisionsContract(session);
  });
}
