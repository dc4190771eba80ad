/**
 * A scenario made from a recording, as YAML: one line a step and event where they fit, and
 * comments where something was inferred (`badge-sim record`).
 */
import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import type { RecordLine } from '../../../protocol/recording.schema.ts';
import type { Scenario } from '../../format/scenario.schema.ts';

/** Comments to attach: at a path of the document (`timeline.3`), the text. */
export type Comments = Map<string, string[]>;

/** The scenario as YAML: one line a step and event where they fit, comments where inferred. */
export function toYaml(
  scenario: Scenario,
  comments: Comments,
  notes: string[],
  session: RecordLine | undefined,
  /** Said after the lines on the fixtures (what was trimmed of them, RS16). */
  fixtures: string[] = [],
): string {
  const doc = new Document(scenario);
  doc.commentBefore = [
    ' Made by badge-sim record from a session recording: edit it as any scenario.',
    ' The fixtures are the ones loaded when the recording began, their secrets replaced by stand-ins;',
    " the badges' behaviours are left out: the recorded taps replay what they did.",
    ...fixtures.map((line) => ` ${line}`),
    ...(session?.clock && (session.clock as { mode?: string }).mode !== 'virtual'
      ? [
          ' The session ran on a running clock: each step is at the instant the stub acted on it (the first',
          ' event it caused, else when it was recorded) and each event at the instant of its cause or when',
          ' its timer was due, rounded to the millisecond: as a replay on the virtual clock gives them.',
        ]
      : []),
    ...notes.map((note) => ` Note: ${note}.`),
  ].join('\n');
  const timeline = doc.get('timeline', true);
  if (isSeq(timeline)) for (const item of timeline.items) if (isMap(item)) flowSmall(item);
  const items = doc.getIn(['expect', 'events', 'items'], true);
  if (isSeq(items)) for (const item of items.items) if (isMap(item)) item.flow = true;
  const heard = doc.getIn(['expect', 'heard'], true);
  if (isMap(heard))
    for (const pair of heard.items) {
      const clips = isMap(pair.value) ? pair.value.get('exactly', true) : undefined;
      if (isSeq(clips)) for (const clip of clips.items) if (isMap(clip)) clip.flow = true;
    }
  for (const [path, texts] of comments) {
    const keys = path.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k));
    const node = doc.getIn(keys, true) as { commentBefore?: string | null } | undefined;
    const text = texts.map((t) => ` ${t}`).join('\n');
    if (node && typeof node === 'object')
      node.commentBefore = node.commentBefore ? `${node.commentBefore}\n${text}` : text;
  }
  return doc.toString({ lineWidth: 0 });
}

/** A step whose values are all scalars or small is written on one line. */
function flowSmall(step: YAMLMap): void {
  const json = JSON.stringify(step.toJSON());
  if (json.length <= 120) step.flow = true;
}
