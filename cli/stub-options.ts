/** The options of `badge-sim stub` as its command parsed them (flags or BADGE_SIM_ variables). */
export interface StubOptions {
  host: string;
  port: number;
  fixtures?: string;
  snapshot?: string;
  generate?: number;
  seed?: number;
  controlToken?: string;
  clock: 'virtual' | 'real' | 'scaled';
  scale?: number;
  authScheme: string;
  brandWord: string;
  urnWord?: string;
  proCliClientId?: string;
  proSdkClientId?: string;
  qaCliClientId?: string;
  qaSdkClientId?: string;
  unknownClientIds: 'refuse' | 'accept';
  unknownFields: 'reject' | 'ignore';
  cancelEvents: 'end-cancelled' | 'end-normal' | 'none';
  badgeAnswerTimeout: number;
  journalLimit: number;
  record?: string;
  /** `--trace FILE`: the session's trace (gzip JSON lines, TR1). */
  trace?: string;
  recordLimit: number;
  quiet?: boolean;
  badges?: string | true;
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  tlsCa?: string;
  tlsDir?: string;
  tlsNames?: string;
}
