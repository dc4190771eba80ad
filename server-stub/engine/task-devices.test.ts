import { expect, test } from 'vitest';
import { TaskDevices } from './task-devices.ts';

const td = (id: string) => ({ device: { id } });

test.each([3, 16, 17, 1_000])(
  'a task of %i devices finds each by id, keeps their order and knows no other',
  (count) => {
    const devices = new TaskDevices<ReturnType<typeof td>>();
    const all = Array.from({ length: count }, (_, i) => td(`dev-${i}`));
    for (const d of all) devices.add(d);
    expect(devices.size).toBe(count);
    expect(devices.values()).toEqual(all);
    for (const d of all) expect(devices.get(d.device.id)).toBe(d);
    expect(devices.get('dev-unknown')).toBeUndefined();
    // One added after a lookup (the index, when there is one, follows).
    const late = td('dev-late');
    devices.add(late);
    expect(devices.get('dev-late')).toBe(late);
  },
);
