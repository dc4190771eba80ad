/**
 * badge-sim as a user gets it: `npm pack` (its prepack builds dist/), the tarball unpacked into
 * a throwaway consumer project, and each way in tried from there with plain `node`, `tsc`,
 * vitest and the `badge-sim` command. The package is built from a copy of this checkout, so a
 * test run never rewrites the repository's own dist/.
 *
 * No registry is needed: the consumer's node_modules holds the unpacked tarball as npm would put
 * it, and the package's dependencies resolve from a node_modules folder one level up that links
 * this repository's own (Node and TypeScript look up the folder tree). That folder also holds
 * dev tools such as tsx, so a separate test checks that the compiled code imports nothing but
 * Node built-ins, declared dependencies and optional peers.
 */
import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectSuccess, packCheckout, REPO, REPO_MODULES, run } from '../support/packed-package.ts';

let work: string;
let consumer: string;
let installed: string;
let tarball: string;
let packedFiles: string[];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'badge-sim-package-'));
  ({ tarball, files: packedFiles } = packCheckout(work));

  // The consumer: `npm install <tarball>` without the registry.
  symlinkSync(REPO_MODULES, join(work, 'node_modules'), 'dir');
  consumer = join(work, 'consumer');
  installed = join(consumer, 'node_modules', 'badge-sim');
  mkdirSync(installed, { recursive: true });
  expectSuccess(run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], work));
  mkdirSync(join(consumer, 'node_modules', '.bin'));
  symlinkSync('../badge-sim/bin/badge-sim.js', join(consumer, 'node_modules', '.bin', 'badge-sim'));
  chmodSync(join(installed, 'bin/badge-sim.js'), 0o755);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  test('holds the compiled package, its runtime files, the Dockerfile, README and LICENSE, and no sources, tests, benches or CI files', () => {
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'Dockerfile',
      '.dockerignore',
      'bin/badge-sim.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/index.js.map',
      'dist/cli/badge-sim.js',
      'dist/cli/badge-sim.js.map',
      'dist/cli/THIRD-PARTY-LICENSES.txt',
      'dist/protocol/validators.prebuilt.js',
      'dist/server-stub/serializers.prebuilt.js',
      'dist/cli/commands.cjs',
      'dist/cli/commands.cjs.run.cache',
      'dist/cli/commands.cjs.stub.cache',
      'dist/scenarios/vitest.d.ts',
      'dist/container/badge-sim-container.d.ts',
      'dist/contract/index.d.ts',
      'dist/fixtures/default.fixtures.yaml',
      'dist/scenarios/scenario.schema.json',
      'dist/scenarios/catalogue/single-acknowledgement.scenario.yaml',
      'dist/scenarios/reports/html-report/page.js',
      'dist/scenarios/reports/html-report/page.css',
      'dist/dashboard/index.html',
      'dist/dashboard/style.css',
      'dist/dashboard/app.js',
    ])
      expect(packedFiles).toContain(file);
    const unwanted = packedFiles.filter(
      (file) =>
        /\.test\.|(^|\/)(test|bench|examples|\.ci|scripts)\//.test(file) ||
        (file.endsWith('.ts') && !file.endsWith('.d.ts')),
    );
    expect(unwanted).toEqual([]);
  });

  test('its compiled code imports only Node built-ins, its dependencies and optional peers (no tsx or TypeScript at run time)', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const allowed = new Set([
      ...Object.keys(manifest.dependencies),
      ...Object.keys(manifest.peerDependencies),
    ]);
    const imported = new Map<string, string>();
    // bin/badge-sim.js loads tsx only in a checkout of the repository, where the sources are.
    const dist = join(installed, 'dist');
    const files = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) =>
      file.endsWith('.js'),
    );
    for (const file of files) {
      const code = readFileSync(join(dist, file), 'utf8');
      // Static imports and re-exports (a line each, as tsc and esbuild write them), dynamic
      // imports, and what the bundled command (dist/cli/, decision Q15) and the prebuilt
      // validators require at run time.
      const specifiers = code.matchAll(
        /^(?:import|export)\b[^;]*?\bfrom ['"]([^'".][^'"]*)['"]|\bimport\(['"]([^'".][^'"]*)['"]\)|\b(?:__)?require\("([^".][^"]*)"\)/gm,
      );
      for (const [, fromStatic, fromDynamic, required] of specifiers) {
        const specifier = (fromStatic ?? fromDynamic ?? required)!;
        const name = specifier.startsWith('@')
          ? specifier.split('/').slice(0, 2).join('/')
          : specifier.split('/')[0]!;
        if (!name.startsWith('node:') && !builtinModules.includes(name)) imported.set(name, file);
      }
    }
    expect(imported.size).toBeGreaterThan(5);
    // Tried in a `try` by bundled dependencies (ws, debug, fdir), which do without them.
    for (const optional of ['bufferutil', 'utf-8-validate', 'supports-color', 'picomatch'])
      allowed.add(optional);
    // Itself: a package may import itself by name, and the files `init` writes do (its templates).
    allowed.add(manifest.name);
    const undeclared = [...imported].filter(([name]) => !allowed.has(name));
    expect(undeclared).toEqual([]);
    expect(Object.keys(manifest.dependencies)).not.toContain('tsx');
  });
});

describe('from a consumer project', () => {
  test('a plain Node ESM script starts a stub and a fleet and sends an alert', () => {
    writeFileSync(
      join(consumer, 'alert.mjs'),
      `import { ServiceClient, startFleet, startStub } from 'badge-sim';

const stub = await startStub();
const fleet = await startFleet({ stub, group: 'Nurses', behaviour: { ack: { after: '12s' } } });
await fleet.waitUntilConnected();
const client = new ServiceClient({
  baseUrl: stub.url, subscriberId: '100001', apiKey: 'demo-api-key-riverside-0001',
});
await client.alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 1 });
await fleet.advanceBy(60_000);
const events = await client.events();
console.log(JSON.stringify({
  heard: fleet.transcript('350000000000001').map((entry) => entry.text),
  events: events.map((event) => event.content.type),
}));
await fleet.close();
await stub.close();
`,
    );
    const out = JSON.parse(expectSuccess(run('node', ['alert.mjs'], consumer)));
    expect(out.heard[0]).toBe('Code blue');
    expect(out.events).toContain('acknowledged');
    expect(out.events.at(-1)).toBe('end');
  });

  test('the installed stub serves the dashboard, its script bundled at build time (no esbuild at run time)', () => {
    writeFileSync(
      join(consumer, 'dashboard.mjs'),
      `import { startStub } from 'badge-sim';

const stub = await startStub({ badges: 'Nurses' });
const page = await fetch(stub.controlUrl + '/ui/');
const script = await fetch(stub.controlUrl + '/ui/app.js');
const snapshot = await (await fetch(stub.controlUrl + '/stream?once=true')).text();
console.log(JSON.stringify({
  page: page.status, csp: page.headers.get('content-security-policy'),
  script: script.status, length: (await script.text()).length,
  online: JSON.parse(snapshot.split('data: ')[1]).devices.filter((d) => d.online).length,
}));
await stub.close();
`,
    );
    const out = JSON.parse(expectSuccess(run('node', ['dashboard.mjs'], consumer)));
    expect(out).toMatchObject({ page: 200, script: 200, online: 3 });
    expect(out.csp).toContain("default-src 'none'");
    expect(out.length).toBeGreaterThan(1_000);
  });

  test("the README's plain Node.js example runs as written", () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const example = /\*\*Plain Node\.js\*\*[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain("from 'badge-sim'");
    writeFileSync(join(consumer, 'readme-example.mjs'), example!);
    const out = expectSuccess(run('node', ['readme-example.mjs'], consumer));
    expect(out).toContain("text: 'Code blue'");
  });

  test('a CommonJS script require()s the entry points that run outside vitest (require of ES modules, Node 20.19 and later)', () => {
    writeFileSync(
      join(consumer, 'require.cjs'),
      `const { startStub } = require('badge-sim');
const { BadgeSimContainer } = require('badge-sim/testcontainers');
const { contractSuite } = require('badge-sim/contract');
console.log([startStub, BadgeSimContainer, contractSuite].map((f) => typeof f).join());
`,
    );
    expect(expectSuccess(run('node', ['require.cjs'], consumer)).trim()).toBe(
      'function,function,function',
    );
  });

  test('a TypeScript project type-checks against the declarations under moduleResolution NodeNext, with no special flags', () => {
    const project = join(consumer, 'typed');
    mkdirSync(project);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true },
      }),
    );
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(project, 'uses-badge-sim.ts'),
      `import { type AnalyticEvent, type FleetHandle, startFleet, startStub, type StubHandle } from 'badge-sim';
import { contractSuite, contractTargetFromEnv } from 'badge-sim/contract';
import { BadgeSimContainer } from 'badge-sim/testcontainers';
import { badgeTest, scenarioTests } from 'badge-sim/vitest';

const stub: StubHandle = await startStub({ seed: 7 });
const fleet: FleetHandle = await startFleet({ stub, group: 'Nurses' });
const events: AnalyticEvent[] = [];
const url: string = stub.url;
const container: BadgeSimContainer = new BadgeSimContainer().withSeed(7);
void [fleet, events, url, container, contractSuite, contractTargetFromEnv, badgeTest, scenarioTests];
// The declarations are real types, not any: a wrong option is an error.
// @ts-expect-error seed is a number
await startStub({ seed: 'seven' });
`,
    );
    const tsc = join(REPO_MODULES, 'typescript', 'bin', 'tsc');
    expectSuccess(run('node', [tsc, '-p', project], project, 120_000));
  }, 150_000);

  test('a vitest project uses badge-sim/vitest: scenarioTests, badgeTest and the event matcher', () => {
    const project = join(consumer, 'with-vitest');
    mkdirSync(join(project, 'scenarios'), { recursive: true });
    cpSync(
      join(installed, 'dist/scenarios/catalogue/single-acknowledgement.scenario.yaml'),
      join(project, 'scenarios/single-acknowledgement.scenario.yaml'),
    );
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(project, 'vitest.config.mjs'), 'export default {};\n');
    writeFileSync(
      join(project, 'alert.test.mjs'),
      `import { expect } from 'vitest';
import { ServiceClient } from 'badge-sim';
import { badgeTest, scenarioTests } from 'badge-sim/vitest';

scenarioTests('scenarios/');

badgeTest('a badge acknowledges', async ({ stub, fleet }) => {
  const client = new ServiceClient({
    baseUrl: stub.url, subscriberId: '100001', apiKey: 'demo-api-key-riverside-0001',
  });
  await client.alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 1 });
  await fleet.advanceBy(10_000);
  fleet.badge('350000000000002').tap();
  await fleet.settled();
  expect(await client.events()).toMatchEventSequence([
    { type: 'start' },
    { type: 'acknowledged', device: 'Ben Okafor', at: '10s' },
    { type: 'end', status: 'normal' },
  ]);
});
`,
    );
    const vitest = join(REPO_MODULES, 'vitest', 'vitest.mjs');
    const out = expectSuccess(run('node', [vitest, 'run'], project, 120_000));
    expect(out).toMatch(/Tests\s+2 passed \(2\)/);
  }, 150_000);

  test("a Jest project in Jest's ES-module mode starts a stub and a fleet in beforeEach, as the README says", () => {
    const project = join(consumer, 'with-jest');
    mkdirSync(project);
    // The README's setup: "type": "module", transform: {}, --experimental-vm-modules.
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ type: 'module', jest: { transform: {} } }),
    );
    writeFileSync(
      join(project, 'alert.test.js'),
      `import { ServiceClient, startFleet, startStub } from 'badge-sim';

let stub;
let fleet;
beforeEach(async () => {
  stub = await startStub();
  fleet = await startFleet({ stub, group: 'Nurses', behaviour: { ack: { after: '12s' } } });
  await fleet.waitUntilConnected();
});
afterEach(async () => {
  await fleet.close();
  await stub.close();
});

test('a badge acknowledges', async () => {
  const client = new ServiceClient({
    baseUrl: stub.url, subscriberId: '100001', apiKey: 'demo-api-key-riverside-0001',
  });
  await client.alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 1 });
  await fleet.advanceBy(60_000);
  const events = (await client.events()).map((event) => event.content.type);
  expect(events).toContain('acknowledged');
  expect(fleet.transcript('350000000000001')[0].text).toBe('Code blue');
});
`,
    );
    const jest = join(REPO_MODULES, 'jest', 'bin', 'jest.js');
    const ran = run('node', ['--experimental-vm-modules', jest, '--ci'], project, 120_000);
    expectSuccess(ran);
    expect(ran.stderr).toMatch(/Tests:\s+1 passed, 1 total/);
  }, 150_000);

  test('npx badge-sim stub --help and npx badge-sim run (the catalogue) run the compiled CLI', () => {
    const help = expectSuccess(run('npx', ['--offline', 'badge-sim', 'stub', '--help'], consumer));
    expect(help).toContain('Usage: badge-sim stub [options]');
    const suite = expectSuccess(run('npx', ['--offline', 'badge-sim', 'run'], consumer, 120_000));
    expect(suite).toContain('✓ Single acknowledgement');
    expect(suite).toContain('all scenarios passed');
  }, 150_000);

  test('npx badge-sim run --reporter html writes the report with its page inlined from the installed package', () => {
    const args = ['--offline', 'badge-sim', 'run', '--grep', '^Single acknowledgement$'];
    expectSuccess(run('npx', [...args, '--reporter', 'html', '-o', 'report.html'], consumer));
    const html = readFileSync(join(consumer, 'report.html'), 'utf8');
    expect(html).toContain('"name":"Single acknowledgement"');
    expect(html).toContain("performance.mark('report-rendered')");
    expect(html).toContain('.timeline {');
  }, 150_000);

  test('init, then npx badge-sim run, then the written vitest test: all pass in a fresh project (Y8)', () => {
    const project = join(consumer, 'fresh');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', private: true }));
    // The project's own node_modules: badge-sim installed in it, as npm install -D would.
    mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
    symlinkSync(installed, join(project, 'node_modules/badge-sim'), 'dir');
    symlinkSync('../badge-sim/bin/badge-sim.js', join(project, 'node_modules/.bin/badge-sim'));
    const init = expectSuccess(run('npx', ['--offline', 'badge-sim', 'init'], project));
    expect(init).toContain('\nNext:\n  npx badge-sim run scenarios/ ');
    // The $schema line names the installed package's schema, which is there.
    const scenario = readFileSync(join(project, 'scenarios/first-alert.scenario.yaml'), 'utf8');
    const schema = /^# yaml-language-server: \$schema=(\S+)$/m.exec(scenario)![1]!;
    const resolved = join(project, 'scenarios', schema);
    expect(resolved).toBe(
      join(project, 'node_modules/badge-sim/dist/scenarios/scenario.schema.json'),
    );
    expect(JSON.parse(readFileSync(resolved, 'utf8')).title).toBe('badge-sim scenario');
    // The workflow's command, as CI runs it.
    const workflow = readFileSync(join(project, '.github/workflows/badge-sim.yml'), 'utf8');
    const command = /run: npx (badge-sim run .*)$/m.exec(workflow)![1]!.split(' ');
    const suite = expectSuccess(run('npx', ['--offline', ...command], project, 120_000));
    expect(suite).toContain('✓ First alert');
    expect(suite).toContain('all scenarios passed');
    expect(readFileSync(join(project, 'badge-sim-report.html'), 'utf8')).toContain(
      '"name":"First alert"',
    );
    const vitest = join(REPO_MODULES, 'vitest', 'vitest.mjs');
    const tests = expectSuccess(run('node', [vitest, 'run'], project, 120_000));
    expect(tests).toMatch(/Tests\s+1 passed \(1\)/);
  }, 300_000);

  test("npx badge-sim --version prints the installed package's version", () => {
    const manifestFile = join(installed, 'package.json');
    const manifest = readFileSync(manifestFile, 'utf8');
    // As a release would: the version in package.json is the one the command reports.
    writeFileSync(
      manifestFile,
      JSON.stringify({ ...JSON.parse(manifest), version: '3.4.5-consumer.6' }, null, 2),
    );
    try {
      const version = expectSuccess(run('npx', ['--offline', 'badge-sim', '--version'], consumer));
      expect(version.trim()).toBe('3.4.5-consumer.6');
    } finally {
      writeFileSync(manifestFile, manifest);
    }
  });

  test('a crash of the installed command names the TypeScript sources of its stack (decision Q13)', () => {
    // A listen that throws: the error goes up through fastify, startStub and the stub command.
    writeFileSync(
      join(consumer, 'refuse-listen.mjs'),
      "import http from 'node:http';\nhttp.Server.prototype.listen = function () { throw new Error('listen refused by the test'); };\n",
    );
    const bin = join(installed, 'bin', 'badge-sim.js');
    const ran = run(
      'node',
      ['--import', './refuse-listen.mjs', bin, 'stub', '--port', '0'],
      consumer,
    );
    expect(ran.status).toBe(1);
    expect(ran.stderr).toContain('Error: listen refused by the test');
    expect(ran.stderr).toMatch(/server-stub\/start-stub\.ts:\d+:\d+/);
    expect(ran.stderr).toMatch(/cli\/stub\.command\.ts:\d+:\d+/);
    // The bundle's own files are named no more in the frames that have a map.
    expect(ran.stderr).not.toMatch(/dist\/cli\/[\w.-]+\.c?js:\d+/);
  });

  test('the installed badge-sim --version loads no code of the stub, the badges or the scenarios (Q15)', () => {
    const log = join(work, 'loads.txt');
    writeFileSync(log, '');
    writeFileSync(
      join(consumer, 'log-loads.mjs'),
      `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(\`import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\\\n'); return next(url, context); }\`));\n`,
    );
    const bin = join(installed, 'bin', 'badge-sim.js');
    expectSuccess(run('node', ['--import', './log-loads.mjs', bin, '--version'], consumer));
    const chunks = readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.includes('/dist/cli/'));
    expect(chunks.length).toBeGreaterThan(0);
    // What each loaded chunk was made of, as its map lists it.
    const sources = chunks.flatMap(
      (url) => JSON.parse(readFileSync(new URL(`${url}.map`), 'utf8')).sources as string[],
    );
    expect(sources.some((source) => source.endsWith('cli/commands.ts'))).toBe(true);
    expect(
      sources.filter((source) =>
        /(^|\/)(server-stub|simulator|scenarios|model)\/|node_modules\/(fastify|typebox|ajv|ws|xstate)\//.test(
          source,
        ),
      ),
    ).toEqual([]);
  });

  test('the prebuilt validators answer as Ajv compiling the schema does (Q16)', async () => {
    const at = (path: string) => new URL(`file://${join(installed, 'dist', path)}`).href;
    const { PREBUILT } = await import(at('protocol/validators.prebuilt.js'));
    const { prebuiltKey, ajvOptions } = await import(at('protocol/validator.js'));
    const { Fixtures } = await import(at('fixtures/fixtures.schema.js'));
    const prebuilt = PREBUILT[prebuiltKey('reject', JSON.stringify(Fixtures))];
    expect(Object.keys(PREBUILT).length).toBeGreaterThan(10);
    expect(prebuilt).toBeTypeOf('function');
    const { Ajv } = await import('ajv');
    const addFormats = (await import('ajv-formats')).default;
    const compiled = addFormats.default(new Ajv(ajvOptions('reject'))).compile(Fixtures);
    const { parse } = await import('yaml');
    const good = parse(
      readFileSync(join(installed, 'dist/fixtures/default.fixtures.yaml'), 'utf8'),
    );
    const bad = structuredClone(good);
    bad.accounts[0].devices[0].id = 7;
    bad.accounts[1].extra = true;
    for (const document of [good, bad, {}, { accounts: 'none' }]) {
      const [a, b] = [structuredClone(document), structuredClone(document)];
      expect(prebuilt(a)).toBe(compiled(b));
      expect(prebuilt.errors).toEqual(compiled.errors);
      // Defaults filled in alike.
      expect(a).toEqual(b);
    }
  });

  test('the installed run and stub compile their bundle with the code cache the build wrote, which this Node takes (Q18)', async () => {
    const { compileCommandBundle } = await import('../../cli/command-bundle.ts');
    const bundle = new URL(`file://${join(installed, 'dist/cli/commands.cjs')}`);
    for (const command of ['run', 'stub'])
      expect(compileCommandBundle(bundle, command).cached).toBe(true);
    // A command without a cache is compiled as any module is.
    expect(compileCommandBundle(bundle, 'devices').cached).toBe(false);
  });

  test('the installed run loads no file of its dependencies beside its bundle: what it runs is in the bundle and its code cache (Q18)', () => {
    const log = join(work, 'requires.txt');
    writeFileSync(
      join(consumer, 'log-requires.cjs'),
      `process.once('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, Object.keys(require.cache).join('\\n')));\n`,
    );
    const bin = join(installed, 'bin', 'badge-sim.js');
    const scenario = join(
      installed,
      'dist/scenarios/catalogue/single-acknowledgement.scenario.yaml',
    );
    expectSuccess(run('node', ['--require', './log-requires.cjs', bin, 'run', scenario], consumer));
    const loaded = readFileSync(log, 'utf8')
      .split('\n')
      .filter((file) => file.includes('node_modules'));
    // Left out of the bundle on purpose, and absent from most installs: debug's optional colours.
    expect(
      loaded.filter((file) => !/node_modules\/(supports-color|has-flag)\//.test(file)),
    ).toEqual([]);
  });

  test('the prebuilt serializers write what fast-json-stringify compiling the schema writes (Q17)', async () => {
    const at = (path: string) => new URL(`file://${join(installed, 'dist', path)}`).href;
    const { PREBUILT_SERIALIZERS } = await import(at('server-stub/serializers.prebuilt.js'));
    const { prebuiltSerializerKey, serializerSchemasUsed } = await import(
      at('server-stub/response-serializers.js')
    );
    const { startStub } = await import(at('index.js'));
    await using stub = await startStub({ seed: 7 });
    const api = '/subscribers/100001/api/v1';
    const authorization = 'ServiceApiKey demo-api-key-riverside-0001';
    // Over HTTP: a started stub sets each answer's socket timeout, which inject() lacks.
    const answers: unknown[] = [];
    for (const [path, init] of [
      ['/_stub/health', {}],
      [
        `${api}/alerts`,
        {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json' },
          body: JSON.stringify({ notification: 'Code blue', groups: ['Nurses'], timeout: 60 }),
        },
      ],
    ] as const) {
      const answer = await fetch(`${stub.url}${path}`, init);
      expect(answer.status).toBeLessThan(300);
      answers.push(await answer.json());
    }
    // Each answer written with a serializer (GET events sends a payload serialised before).
    const used: string[] = serializerSchemasUsed();
    expect(used.length).toBe(answers.length);
    // A union among them (the health check's): its branches' validators inlined at build.
    expect(used.some((text) => text.includes('"anyOf"'))).toBe(true);
    const fastJson = (await import('fast-json-stringify')).default;
    const written = (serialize: (data: unknown) => string, data: unknown) => {
      try {
        return serialize(data);
      } catch (error) {
        return `threw ${(error as Error).message}`;
      }
    };
    for (const text of used) {
      const prebuilt = PREBUILT_SERIALIZERS[prebuiltSerializerKey(text)];
      expect(prebuilt, text.slice(0, 200)).toBeTypeOf('function');
      const compiled = fastJson(JSON.parse(text));
      // Each answer sent, and the same with a field no schema lists (dropped alike).
      for (const answer of answers as Record<string, unknown>[])
        for (const data of [answer, { ...answer, unlisted: true }])
          expect(written(prebuilt(), data)).toBe(written(compiled, data));
    }
  });
});
