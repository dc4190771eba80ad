/**
 * Which folder may import which: the layers of docs/architecture.md ("Layers"), checked by
 * `npm run lint` (and so by `npm test` and CI). From the bottom up:
 *
 *   protocol → clock, input → fixtures → client, server-stub → stub-connection → simulator → model → scenarios
 *     → container, contract → cli (and the package's entry points at the root)
 *
 * A folder imports only from the layers below it; the dashboard (a page in the browser) only
 * from protocol/. Tests, benches, scripts and examples may import anything, and nothing of the
 * product imports them. Violations that were there when the check came are listed in
 * .dependency-cruiser-known-violations.json (`--ignore-known`): each is one to remove, and no
 * new one can land.
 */
const PRODUCT =
  '^(protocol|clock|input|fixtures|client|server-stub|stub-connection|simulator|model|scenarios|container|contract|cli|dashboard)/';
const NOT_TESTS = '\\.test\\.ts$';

/** A rule that `from` (a folder of the product) imports none of `to` (folders). */
function below(name, from, to, comment) {
  return {
    name,
    comment,
    severity: 'error',
    from: { path: `^(${from})/`, pathNot: NOT_TESTS },
    to: { path: `^(${to})/` },
  };
}

/** The vitest entry point and its public types, on top of the scenario folders. */
const SCENARIOS_TOP = 'scenarios/[^/]+\\.ts$';

/** A rule that scenarios/`from` imports none of scenarios/`to` (folders, or the entry point). */
function scenariosBelow(name, from, to, comment) {
  const rule = below(name, `scenarios/(${from})`, `scenarios/(${to})`, comment);
  rule.to.path += `|^${SCENARIOS_TOP}`;
  return rule;
}

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved alone.',
      severity: 'error',
      from: { path: PRODUCT, pathNot: NOT_TESTS },
      to: { circular: true },
    },
    below(
      'protocol-is-the-bottom',
      'protocol',
      'clock|input|fixtures|client|server-stub|stub-connection|simulator|model|scenarios|container|contract|cli|dashboard',
      'Wire shapes, the clock and ids: everything builds on them, they build on nothing of ours.',
    ),
    below(
      'clock-on-protocol-only',
      'clock',
      'input|fixtures|client|server-stub|stub-connection|simulator|model|scenarios|container|contract|cli|dashboard',
      'The virtual clock the stub and the badges share: it reads timestamps, nothing above.',
    ),
    below(
      'input-on-protocol-only',
      'input',
      'clock|fixtures|client|server-stub|stub-connection|simulator|model|scenarios|container|contract|cli|dashboard',
      'Reading what comes from outside (YAML with its lines, JSON lines, foreign keys, mistyped words): any layer may, it knows none.',
    ),
    below(
      'fixtures-on-protocol-only',
      'fixtures',
      'client|server-stub|stub-connection|simulator|model|scenarios|container|contract|cli|dashboard',
      'The fixtures format is read by the stub, the badges and the scenarios alike.',
    ),
    below(
      'client-knows-no-stub',
      'client',
      'server-stub|stub-connection|simulator|model|scenarios|container|contract|cli|dashboard',
      'The typed clients talk HTTP to any stub (or the service); they never load the server.',
    ),
    below(
      'stub-knows-no-badges',
      'server-stub',
      'client|stub-connection|simulator|model|scenarios|container|contract|cli|dashboard',
      'The stub serves whoever connects; badges, scenarios and commands are built on it, not in it.',
    ),
    below(
      'connection-below-badges',
      'stub-connection',
      'simulator|model|scenarios|container|contract|cli|dashboard',
      'How the runner, a fleet and the fixtures reach a stub (principle 9): in this process or by URL.',
    ),
    below(
      'badges-know-no-stub-internals',
      'simulator',
      'server-stub|model|scenarios|container|contract|cli|dashboard',
      'Badges reach a stub through a connection (principle 9), never through its internals.',
    ),
    below(
      'model-below-scenarios',
      'model',
      'server-stub|scenarios|container|contract|cli|dashboard',
      'The alert model is written from the spec; scenarios use it, it does not use them.',
    ),
    below(
      'scenarios-below-commands',
      'scenarios',
      'container|contract|cli|dashboard',
      'The runner and its reports are a library; the CLI and the container are thin edges over it.',
    ),
    scenariosBelow(
      'scenario-format-is-the-base',
      'format',
      'checks|runner|reports|field-bugs',
      'The format (schema, loader, decision rows) is what every scenario part reads; it reads none.',
    ),
    scenariosBelow(
      'checks-know-only-the-format',
      'checks',
      'runner|reports|field-bugs',
      'A check compares what happened with what a scenario expects: it never runs one.',
    ),
    scenariosBelow(
      'runner-knows-no-reports',
      'runner',
      'reports|field-bugs',
      'The runner calls reporters through its Reporter interface; reports and field bugs use it.',
    ),
    scenariosBelow(
      'reports-and-field-bugs-apart',
      'reports',
      'field-bugs',
      'Reports read runs; field bugs make scenarios of exports and recordings: neither needs the other.',
    ),
    scenariosBelow(
      'reports-and-field-bugs-apart',
      'field-bugs',
      'reports',
      'Reports read runs; field bugs make scenarios of exports and recordings: neither needs the other.',
    ),
    below(
      'container-and-contract-below-commands',
      'container|contract',
      'cli|dashboard|scenarios|server-stub',
      'The testcontainers module and the contract suite talk to a stub over the network only.',
    ),
    {
      name: 'dashboard-reads-protocol-only',
      comment:
        'The page runs in a browser: it may read wire shapes, nothing of the server or Node.',
      severity: 'error',
      from: { path: '^dashboard/', pathNot: NOT_TESTS },
      to: { path: '^[^/]+/', pathNot: '^(dashboard|protocol)/' },
    },
    {
      name: 'product-imports-no-tests',
      comment: 'Tests, benches, scripts and examples use the product; the product never uses them.',
      severity: 'error',
      from: { path: PRODUCT, pathNot: NOT_TESTS },
      to: { path: '^(test|bench|scripts|examples)/|\\.test\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    // TypeScript 7 (the project's compiler) has no JavaScript API for dependency-cruiser to
    // parse with: Babel reads the sources instead (types stripped, type-only imports kept).
    babelConfig: { fileName: '.dependency-cruiser.babel.cjs' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
