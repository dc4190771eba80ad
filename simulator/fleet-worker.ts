/**
 * One worker thread of a fleet split over threads (fleet-workers.ts): it runs an ordinary
 * in-thread fleet of the devices it was given, reports its summary and activity when they change
 * (looked at every REPORT_EVERY_MS), and answers the main thread's requests (settle, first plays, close).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FleetActivity } from './fleet-activity.ts';
import { StubUnreachableError } from './fleet-connect.ts';
import type { FleetOptions } from './fleet-options.ts';
import type { ToWorker, WorkerMessage } from './fleet-workers.ts';

/** How often a worker tells the main thread how its badges are. */
export const REPORT_EVERY_MS = 100;

async function main(): Promise<void> {
  const port = parentPort!;
  const post = (message: WorkerMessage) => port.postMessage(message);
  // Imported here, not at the top: the thread's module loader is set up by then (tsx from source).
  const { startFleet } = await import('./fleet.ts');
  let fleet: Awaited<ReturnType<typeof startFleet>>;
  try {
    fleet = await startFleet((workerData as { options: FleetOptions }).options);
  } catch (error) {
    post({ type: 'failed', message: (error as Error).message });
    return;
  }
  const activity = new FleetActivity(fleet.badges);
  // Only what changed crosses to the main thread: an idle fleet's worker then allocates next to
  // nothing, and V8 can find it idle enough to hand its heap's spare memory back.
  let last = '';
  const report = (always = false) => {
    const message: WorkerMessage = {
      type: 'report',
      summary: fleet.summary(),
      activity: activity.counts(),
    };
    const text = JSON.stringify(message);
    if (!always && text === last) return;
    last = text;
    post(message);
  };
  report();
  const reporting = setInterval(report, REPORT_EVERY_MS);

  port.on('message', async (message: ToWorker) => {
    try {
      switch (message.what) {
        case 'settle':
          await fleet.settled();
          post({ type: 'reply', id: message.id, value: null });
          return;
        case 'firstPlays':
          post({ type: 'reply', id: message.id, value: activity.firstPlays(message.taskId) });
          return;
        case 'report':
          report(true);
          post({ type: 'reply', id: message.id, value: null });
          return;
        case 'close':
          clearInterval(reporting);
          activity.stop();
          await fleet.close();
          post({ type: 'reply', id: message.id, value: null });
          port.close();
          return;
      }
    } catch (error) {
      // A lost stub is told apart: the main thread's wait goes on while the badges reconnect.
      const unreachable = error instanceof StubUnreachableError ? { unreachable: error.code } : {};
      post({ type: 'reply', id: message.id, error: (error as Error).message, ...unreachable });
    }
  });
}

await main();
