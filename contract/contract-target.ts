/**
 * What the contract suite runs against, read from the environment so that the same suite
 * checks an embedded stub, the container, or the original service's qa environment.
 */

import { readFileSync } from 'node:fs';

export interface ContractTarget {
  /** `{base_url}` of the notification interface. */
  baseUrl: string;
  subscriberId: string;
  /** A secret: never printed. */
  apiKey: string;
  authScheme: string;
  /** A group of the account to alert and broadcast to (its devices will hear the tests). */
  group: string;
  /** `{api_host}` of the trigger and device interface. */
  apiHost: string;
  /** `{auth_url}` of the token endpoint. */
  authUrl: string;
  /** The SDK client id of the environment. */
  clientId: string;
  /** A secret: never printed. */
  refreshToken: string;
  /** An HTTP workflow (`wf_http_…`) to invoke; without it the trigger checks are skipped. */
  workflowId?: string;
  /** A device of the account (user_id); without it the trigger and device checks are skipped. */
  deviceId?: string;
  brandWord: string;
  /** Also check badge-sim's decisions where the spec is silent (error statuses and bodies). */
  decisions: boolean;
  /** PEM of a CA to trust besides Node's: an `https://` stub's own (`badge-sim stub --tls`). */
  ca?: string;
}

/** The variables, their meaning and their defaults: the README's table is this. */
export const CONTRACT_VARIABLES = {
  BADGE_SIM_CONTRACT_BASE_URL: '{base_url} of the notification interface (required)',
  BADGE_SIM_CONTRACT_SUBSCRIBER_ID: 'the subscriber id (required)',
  BADGE_SIM_CONTRACT_API_KEY: 'an API key of that account (required)',
  BADGE_SIM_CONTRACT_REFRESH_TOKEN: 'a refresh token of that account (required)',
  BADGE_SIM_CONTRACT_GROUP: 'a group to alert and broadcast to (default Security)',
  BADGE_SIM_CONTRACT_API_HOST: '{api_host} (default: the base URL)',
  BADGE_SIM_CONTRACT_AUTH_URL: '{auth_url} (default: the API host)',
  BADGE_SIM_CONTRACT_CLIENT_ID: 'the SDK client id (default badge-sim-pro-sdk)',
  BADGE_SIM_CONTRACT_WORKFLOW_ID: 'an HTTP workflow to invoke (trigger checks skip without it)',
  BADGE_SIM_CONTRACT_DEVICE_ID:
    'a device of the account (trigger and device checks skip without it)',
  BADGE_SIM_CONTRACT_AUTH_SCHEME: 'scheme word of the API key header (default ServiceApiKey)',
  BADGE_SIM_CONTRACT_BRAND_WORD: 'brand word of the device path (default service)',
  BADGE_SIM_CONTRACT_DECISIONS:
    'check (default) or skip the stub’s decisions where the spec is silent',
  BADGE_SIM_CONTRACT_CA_FILE:
    'a CA file (PEM) to trust for https:// (the one `badge-sim stub --tls` prints; NODE_EXTRA_CA_CERTS works too)',
} as const;

export class ContractConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContractConfigError';
  }
}

const REQUIRED = [
  'BADGE_SIM_CONTRACT_BASE_URL',
  'BADGE_SIM_CONTRACT_SUBSCRIBER_ID',
  'BADGE_SIM_CONTRACT_API_KEY',
  'BADGE_SIM_CONTRACT_REFRESH_TOKEN',
] as const;

/** Reads the target; a missing or malformed variable is named, with what to set. */
export function contractTargetFromEnv(
  env: Record<string, string | undefined> = process.env,
): ContractTarget {
  const missing = REQUIRED.filter((name) => !env[name]);
  if (missing.length > 0)
    throw new ContractConfigError(
      `badge-sim contract: set ${missing.join(', ')} (${missing.map((m) => CONTRACT_VARIABLES[m]).join('; ')})`,
    );
  const url = (name: keyof typeof CONTRACT_VARIABLES, fallback?: string): string => {
    const value = env[name] ?? fallback;
    if (!value || !/^https?:\/\/[^/]/.test(value))
      throw new ContractConfigError(
        `badge-sim contract: ${name} must be an http(s) URL such as http://127.0.0.1:8080 (it is '${value ?? ''}')`,
      );
    return value.replace(/\/+$/, '');
  };
  const decisions = env.BADGE_SIM_CONTRACT_DECISIONS ?? 'check';
  if (decisions !== 'check' && decisions !== 'skip')
    throw new ContractConfigError(
      `badge-sim contract: BADGE_SIM_CONTRACT_DECISIONS must be check or skip (it is '${decisions}')`,
    );
  const baseUrl = url('BADGE_SIM_CONTRACT_BASE_URL');
  const apiHost = url('BADGE_SIM_CONTRACT_API_HOST', baseUrl);
  const caFile = env.BADGE_SIM_CONTRACT_CA_FILE || undefined;
  let ca: string | undefined;
  if (caFile !== undefined) {
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch (error) {
      throw new ContractConfigError(
        `badge-sim contract: BADGE_SIM_CONTRACT_CA_FILE ${caFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      );
    }
    if (!ca.includes('-----BEGIN CERTIFICATE-----'))
      throw new ContractConfigError(
        `badge-sim contract: BADGE_SIM_CONTRACT_CA_FILE ${caFile} holds no PEM certificate`,
      );
  }
  return {
    baseUrl,
    subscriberId: env.BADGE_SIM_CONTRACT_SUBSCRIBER_ID!,
    apiKey: env.BADGE_SIM_CONTRACT_API_KEY!,
    authScheme: env.BADGE_SIM_CONTRACT_AUTH_SCHEME ?? 'ServiceApiKey',
    group: env.BADGE_SIM_CONTRACT_GROUP ?? 'Security',
    apiHost,
    authUrl: url('BADGE_SIM_CONTRACT_AUTH_URL', apiHost),
    clientId: env.BADGE_SIM_CONTRACT_CLIENT_ID ?? 'badge-sim-pro-sdk',
    refreshToken: env.BADGE_SIM_CONTRACT_REFRESH_TOKEN!,
    workflowId: env.BADGE_SIM_CONTRACT_WORKFLOW_ID || undefined,
    deviceId: env.BADGE_SIM_CONTRACT_DEVICE_ID || undefined,
    brandWord: env.BADGE_SIM_CONTRACT_BRAND_WORD ?? 'service',
    decisions: decisions === 'check',
    ...(ca === undefined ? {} : { ca }),
  };
}

/** The variables that point the suite at a badge-sim stub with the default fixtures. */
export function defaultFixturesContractEnv(stubUrl: string): Record<string, string> {
  return {
    BADGE_SIM_CONTRACT_BASE_URL: stubUrl,
    BADGE_SIM_CONTRACT_SUBSCRIBER_ID: '100001',
    BADGE_SIM_CONTRACT_API_KEY: 'demo-api-key-riverside-0001',
    BADGE_SIM_CONTRACT_REFRESH_TOKEN: 'demo-refresh-token-riverside-pro-0001',
    BADGE_SIM_CONTRACT_GROUP: 'Security',
    BADGE_SIM_CONTRACT_WORKFLOW_ID: 'wf_http_page_security',
    BADGE_SIM_CONTRACT_DEVICE_ID: '350000000000005',
  };
}
