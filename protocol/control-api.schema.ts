/**
 * The control API: everything a test needs that the service itself does not offer, under the
 * one reserved prefix `/_stub` (docs/architecture.md, decision 4). Its schemas sit in
 * `control-api/`, one module a capability, named as the stub's control route plugins are
 * (server-stub/routes/control/); faults, the journal, the recording, the live stream and
 * snapshots have theirs beside this file (`faults.schema.ts`, `journal.schema.ts`,
 * `recording.schema.ts`, `live-stream.schema.ts`, `snapshot.schema.ts`). This module is the
 * one place the rest of the code names them by.
 *
 * The answers' types carry the schemas' names (`Health`, `ClockAdvanced`, `DeviceView`…):
 * what `StubControlClient` returns, so a user of the package can name them (they are in its
 * public types).
 */
export * from './control-api/clock.schema.ts';
export * from './control-api/control-token.ts';
export * from './control-api/devices.schema.ts';
export * from './control-api/events.schema.ts';
export * from './control-api/fixtures.schema.ts';
export * from './control-api/settings.schema.ts';
export * from './control-api/stub.schema.ts';
export * from './control-api/tasks.schema.ts';
export * from './control-api/trigger.schema.ts';
