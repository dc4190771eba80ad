/** The contract suite against the container the run shares, pointed at it through the environment variables. */
import { inject } from 'vitest';
import {
  contractSuite,
  contractTargetFromEnv,
  defaultFixturesContractEnv,
} from '../../contract/index.ts';

contractSuite('the badge-sim container', () =>
  contractTargetFromEnv(defaultFixturesContractEnv(inject('badgeSimUrl'))),
);
