/**
 * The device protocol's AsyncAPI 3.0 document (issue 31 point 7, decision D17): generated from
 * the frame schemas, valid for the AsyncAPI parser, served open at `GET /_stub/asyncapi.json`
 * with the stub's own address; and a badge written only from it (`asyncapi-client.mjs`: `ws`
 * and the document) connects to a stub on a real port, hears an alert and acknowledges it.
 */
import { Parser } from '@asyncapi/parser';
import { describe, expect, test } from 'vitest';
import { BadgeFrame, StubFrame } from '../../protocol/device-frames.schema.ts';
import { deviceProtocolAsyncApi } from '../../protocol/device-protocol.asyncapi.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { request, serviceClient } from '../support/http.ts';
import { connectBadge } from './asyncapi-client.mjs';

const BEN = { deviceId: '350000000000002', key: 'badge-key-0002' };

describe('the AsyncAPI document of the device protocol (D17)', () => {
  test('the AsyncAPI parser reads it with no error and no warning', async () => {
    const { document, diagnostics } = await new Parser().parse(deviceProtocolAsyncApi() as any);
    expect(diagnostics.filter((d) => d.severity <= 1).map((d) => d.message)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(
      document
        ?.operations()
        .all()
        .map((o) => o.id()),
    ).toContain('receiveHello');
  }, 60_000);

  test('every frame of the protocol is a message whose payload is its schema, written once', () => {
    const document = deviceProtocolAsyncApi() as any;
    const messages = Object.values(document.channels.device.messages) as any[];
    for (const frame of [...BadgeFrame.anyOf, ...StubFrame.anyOf]) {
      const type = (frame.properties.type as { const: string }).const;
      const message = messages.find((m) => m.payload.properties.type.const === type);
      expect(message?.payload, type).toEqual(JSON.parse(JSON.stringify(frame)));
    }
    // Frames a badge sends are what the stub receives; the stub's own, what it sends.
    expect(document.operations.receiveHello.action).toBe('receive');
    expect(document.operations.sendPlay.action).toBe('send');
    expect(document.channels.device.messages.state['x-answered-with-handled']).toBe(false);
    expect(document.channels.device.messages.play['x-answered-with-handled']).toBe(true);
    expect(document.channels.device['x-close-codes']['4001']).toMatch(/hello refused/);
  });

  test('GET /_stub/asyncapi.json serves it without the control token, at the address asked', async () => {
    await using stub = await startStub({ controlToken: 'locked-for-this-test' });
    const served = await request(`${stub.url}/_stub/asyncapi.json`);
    expect(served.status).toBe(200);
    expect(served.body).toEqual(deviceProtocolAsyncApi({ host: `127.0.0.1:${stub.port}` }));
    expect(served.body.servers.stub).toMatchObject({ protocol: 'ws' });
    // The rest of /_stub stays locked.
    expect((await request(`${stub.url}/_stub/tasks`)).status).toBe(401);
  });

  test('a stub serving TLS names wss:// in it', async () => {
    await using stub = await startStub({ tls: true });
    const served = await fetch(`${stub.url}/_stub/asyncapi.json`, {
      // @ts-expect-error undici's dispatcher option is not in the DOM typing
      dispatcher: await trusting(stub.tls!.caPem!),
    });
    expect(((await served.json()) as any).servers.stub).toEqual(
      expect.objectContaining({ host: `127.0.0.1:${stub.port}`, protocol: 'wss' }),
    );
  });
});

describe('a badge written only from the document', () => {
  test('connects, hears an alert and acknowledges it: the stub records the acknowledgement', async () => {
    await using stub = await startStub();
    const document = (await request(`${stub.url}/_stub/asyncapi.json`)).body;
    const badge = await connectBadge(document, BEN);
    try {
      expect(await badge.next('welcome')).toMatchObject({ user: 'Ben Okafor', mode: 'virtual' });
      const api = serviceClient(stub);
      const { body } = await api.alert({ notification: 'Code blue', groups: ['Nurses'] });
      const play = await badge.next('play');
      expect(play).toMatchObject({ task_id: body.task_id, text: 'Code blue', repeat: 0 });
      badge.send({ type: 'button', taps: 'single', task_id: play.task_id });
      expect(await badge.next('stop')).toMatchObject({
        task_id: body.task_id,
        cause: 'acknowledged',
      });

      const task = await request(`${stub.url}/_stub/tasks/${body.task_id}`);
      expect(task.body.acknowledgements).toBe(1);
      expect(task.body.devices).toContainEqual(
        expect.objectContaining({ device_id: BEN.deviceId, status: 'acknowledged' }),
      );
      const events = (await api.events()).body;
      expect(events).toContainEqual(
        expect.objectContaining({
          content: expect.objectContaining({ type: 'acknowledged', device: 'Ben Okafor' }),
          task: expect.objectContaining({ id: body.task_id }),
        }),
      );
    } finally {
      badge.close();
    }
  });
});

async function trusting(caPem: string) {
  const { Agent } = await import('undici');
  return new Agent({ connect: { ca: caPem } });
}
