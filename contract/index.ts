/** `badge-sim/contract`: the contract suite and how it finds its target. */
export { contractSuite } from './contract-suite.ts';
export {
  CONTRACT_VARIABLES,
  ContractConfigError,
  contractTargetFromEnv,
  defaultFixturesContractEnv,
} from './contract-target.ts';
export type * from './public-types.ts';
