/**
 * The words for a hold: the stub's clock went on without a badge that did not answer within
 * its bound (docs/device-protocol.md, "Time"). Here, not in the stub, because the stub, the
 * CLI and both kinds of stub connection show it, and a fleet against a stub in another
 * process loads no stub code.
 */
export function holdMessage(hold: { deviceId: string; user: string; boundMs: number }): string {
  const bound = hold.boundMs % 1000 === 0 ? `${hold.boundMs / 1000} s` : `${hold.boundMs} ms`;
  return `badge ${hold.deviceId} (${hold.user}) did not answer within ${bound}: the clock went on without it`;
}
