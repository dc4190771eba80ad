/**
 * Every type a user of `badge-sim/contract` sees (`index.ts` re-exports them all): the target
 * the suite checks.
 */
export type { ContractTarget } from './contract-target.ts';
