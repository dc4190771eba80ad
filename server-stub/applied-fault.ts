/**
 * What the fault table did to a request, kept on the request for the request journal: the
 * journal marks each entry with the fault that shaped its answer. Set by the faults' hook,
 * read when the journal records the answer.
 */
export interface AppliedFault {
  /** The fault's id, as `GET /_stub/faults` lists it. */
  readonly id: string;
  /** What it did: answered for the API, delayed, reset the connection, stalled the body. */
  readonly kind: 'status' | 'latency' | 'reset' | 'stall';
  /** Whether the request reached the emulated API (and so may have changed stored state). */
  readonly letThrough: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault applied to this request, if any (server-stub/applied-fault.ts). */
    stubFault?: AppliedFault;
  }
}
