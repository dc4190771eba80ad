/** The bench's alert to every badge (bench/fleet-run.ts), posted and cancelled as a client would. */
import { progress } from './fleet-run-format.ts';

/** Where the alert goes: the stub, the account, and the alert's body. */
interface AlertTarget {
  url: string;
  subscriberId: string;
  apiKey: string;
  alert: { notification: string; groups: string[]; timeout: number };
}

export function postAlert({ url, subscriberId, apiKey, alert }: AlertTarget): Promise<Response> {
  return fetch(`${url}/subscribers/${subscriberId}/api/v1/alerts`, {
    method: 'POST',
    headers: { authorization: `ServiceApiKey ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(alert),
  });
}

export async function cancelAlert(
  { url, subscriberId, apiKey }: AlertTarget,
  taskId: string,
): Promise<void> {
  const cancel = await fetch(
    `${url}/subscribers/${subscriberId}/api/v1/alerts/${encodeURIComponent(taskId)}`,
    { method: 'DELETE', headers: { authorization: `ServiceApiKey ${apiKey}` } },
  );
  await cancel.arrayBuffer();
  if (!cancel.ok) progress(`DELETE of the bench's alert answered ${cancel.status}`);
}
