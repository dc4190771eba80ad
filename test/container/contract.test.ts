/** The contract suite against the container the run shares, pointed at it through the environment variables. */
import { beforeAll, inject } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import {
  contractSuite,
  contractTargetFromEnv,
  defaultFixturesContractEnv,
} from '../../contract/index.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { seedEvents } from '../support/http.ts';

beforeAll(async () => {
  // The default fixtures (another file of the run may have loaded its own), and more than
  // 100 events for the limit checks.
  await new StubControlClient(inject('badgeSimUrl'), {
    controlToken: inject('badgeSimControlToken'),
  }).loadFixtures(loadFixturesFile(DEFAULT_FIXTURES_FILE));
  await seedEvents(inject('badgeSimUrl'), undefined, undefined, inject('badgeSimControlToken'));
});

contractSuite('the badge-sim container', () =>
  contractTargetFromEnv(defaultFixturesContractEnv(inject('badgeSimUrl'))),
);
