import { describe, expect, test } from 'vitest';
import type { ContractSession } from './contract-session.ts';

/** The token, workflow-trigger and device interface as the spec writes it. */
export function triggerContract(s: ContractSession): void {
  const { token, tokens, trigger, deviceInfo, needsDevice } = s;
  describe('token, trigger and device interface (spec)', () => {
    test('POST oauth2/token with a form answers access_token and id_token', async () => {
      const answer = await token({
        grant_type: 'refresh_token',
        client_id: s.t.clientId,
        refresh_token: s.t.refreshToken,
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.body).toMatchObject({
        access_token: expect.any(String),
        id_token: expect.any(String),
      });
      expect(answer.body.access_token).not.toBe(answer.body.id_token);
    });

    test('POST ibot/workflow with a bearer token and a User-Agent answers 200', async (context) => {
      needsDevice(context, true);
      const { access_token } = await tokens();
      expect((await trigger(access_token)).status).toBe(200);
    });

    test('an invalid bearer token gets 401 on both trigger and device paths', async (context) => {
      needsDevice(context, true);
      expect((await trigger('not-a-token-of-this-service')).status).toBe(401);
      expect((await deviceInfo('not-a-token-of-this-service')).status).toBe(401);
    });

    test('GET device answers a JSON object', async (context) => {
      needsDevice(context);
      const { access_token } = await tokens();
      const answer = await deviceInfo(access_token);
      expect(answer.status).toBe(200);
      expect(answer.body).toBeTypeOf('object');
    });
  });
}
