/**
 * examples/kubernetes/badge-sim.yaml, checked without a cluster: the documents are the kinds
 * and API versions Kubernetes takes, with the fields each needs; the Service selects the stub's
 * pods on its port; the fleet is an indexed Job whose pods are the shards 1/N..N/N of one N,
 * pointed at the Service; the containers' arguments are ones the badge-sim CLI accepts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from './support/cli.ts';

const FILE = 'examples/kubernetes/badge-sim.yaml';
const docs = parseAllDocuments(readFileSync(FILE, 'utf8')).map((d) => d.toJS() as any);
const byKind = (kind: string) => docs.find((d) => d.kind === kind);

describe('the Kubernetes example', () => {
  test('a Deployment, a Service and an indexed Job, each with what its kind needs', () => {
    expect(docs.map((d) => `${d.apiVersion} ${d.kind}`)).toEqual([
      'apps/v1 Deployment',
      'v1 Service',
      'batch/v1 Job',
    ]);
    for (const doc of docs) expect(doc.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    const deployment = byKind('Deployment');
    expect(deployment.spec.selector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    const service = byKind('Service');
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    const stub = deployment.spec.template.spec.containers[0];
    expect(stub.ports[0].containerPort).toBe(service.spec.ports[0].targetPort);
    expect(stub.readinessProbe.httpGet).toEqual({ path: '/_stub/health', port: 8080 });
  });

  test('the Job runs N shards 1/N..N/N against the Service, and the CLI takes both commands', () => {
    const job = byKind('Job');
    const service = byKind('Service');
    expect(job.spec.completionMode).toBe('Indexed');
    expect(job.spec.parallelism).toBe(job.spec.completions);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    const script: string = job.spec.template.spec.containers[0].args[0];
    const shard = /--shard \$\(\(JOB_COMPLETION_INDEX \+ 1\)\)\/(\d+)/.exec(script);
    expect(shard, 'the shard comes from the completion index').not.toBeNull();
    expect(Number(shard![1])).toBe(job.spec.completions);
    expect(script).toContain(
      `--stub http://${service.metadata.name}:${service.spec.ports[0].port}`,
    );
    // The same arguments, the index made 1-based, are ones `badge-sim devices` accepts.
    const args = script
      .replace(/^exec node dist\/cli\/badge-sim\.js /, '')
      .replace('$((JOB_COMPLETION_INDEX + 1))', '1')
      .split(/\s+/);
    expect(args[0]).toBe('devices');
    const help = runCli([...args, '--help']);
    expect(help.status, help.stderr).toBe(0);
    const stubArgs = byKind('Deployment').spec.template.spec.containers[0].args as string[];
    const stubHelp = runCli(['stub', ...stubArgs, '--help']);
    expect(stubHelp.status, stubHelp.stderr).toBe(0);
  });
});
