import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { EngineError } from './engine-error.ts';

export interface Device {
  id: string;
  /** Name of the user profile on the device: what `content.device` carries. */
  user: string;
  subscriberId: string;
}

export interface Group {
  id: string;
  name: string;
  members: readonly string[];
}

interface Account {
  subscriberId: string;
  name: string | undefined;
  groupsByName: Map<string, Group>;
  groupsById: Map<string, Group>;
  devices: Device[];
}

/** Accounts, their API keys, groups and devices, indexed for the engine and the routes. */
export class Directory {
  readonly #accounts = new Map<string, Account>();
  readonly #keys = new Map<string, string>();
  readonly #devices = new Map<string, Device>();
  readonly #urnPrefix: string;

  constructor(
    fixtures: Fixtures,
    /** The word of group URNs (settings.urnWord). */
    readonly urnWord: string,
  ) {
    this.#urnPrefix = `urn:${urnWord}-resource:`;
    for (const account of fixtures.accounts) {
      const devices = account.devices.map((d) => ({
        id: d.id,
        user: d.user,
        subscriberId: account.subscriber_id,
      }));
      for (const device of devices) this.#devices.set(device.id, device);
      for (const key of account.api_keys) this.#keys.set(key, account.subscriber_id);
      this.#accounts.set(account.subscriber_id, {
        subscriberId: account.subscriber_id,
        name: account.name,
        devices,
        groupsByName: new Map(account.groups.map((g) => [g.name, g])),
        groupsById: new Map(account.groups.map((g) => [g.id, g])),
      });
    }
  }

  /** The subscriber id an API key belongs to. */
  subscriberForKey(key: string): string | undefined {
    return this.#keys.get(key);
  }

  hasSubscriber(subscriberId: string): boolean {
    return this.#accounts.has(subscriberId);
  }

  device(id: string): Device | undefined {
    return this.#devices.get(id);
  }

  devices(subscriberId?: string): Device[] {
    if (subscriberId === undefined) return [...this.#devices.values()];
    return this.#accounts.get(subscriberId)?.devices ?? [];
  }

  groups(subscriberId: string): Group[] {
    return [...(this.#accounts.get(subscriberId)?.groupsByName.values() ?? [])];
  }

  subscribers(): { subscriberId: string; name: string | undefined }[] {
    return [...this.#accounts.values()].map(({ subscriberId, name }) => ({ subscriberId, name }));
  }

  /**
   * Resolves group names and URNs to the devices they hold, each device once even when it is
   * in several of the groups, in the order the groups and their members are listed.
   */
  resolveGroups(subscriberId: string, refs: readonly string[]): Device[] {
    const account = this.#accounts.get(subscriberId);
    if (!account) throw new EngineError('unknown_subscriber', `unknown subscriber ${subscriberId}`);
    const seen = new Set<string>();
    const devices: Device[] = [];
    refs.forEach((ref, i) => {
      const group = this.#findGroup(account, ref);
      if (!group) {
        throw new EngineError(
          'unknown_group',
          `groups[${i}]: no group '${ref}' in account ${subscriberId} (give a group name, ` +
            `${this.#urnPrefix}name:group:<name> or ${this.#urnPrefix}id:group:<id>)`,
          `groups[${i}]`,
        );
      }
      for (const id of group.members) {
        if (seen.has(id)) continue;
        seen.add(id);
        devices.push(this.#devices.get(id)!);
      }
    });
    return devices;
  }

  #findGroup(account: Account, ref: string): Group | undefined {
    if (!ref.startsWith(this.#urnPrefix)) return account.groupsByName.get(ref);
    const rest = ref.slice(this.#urnPrefix.length);
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    if (rest.startsWith('name:group:')) {
      const name = rest.slice('name:group:'.length);
      return account.groupsByName.get(name) ?? account.groupsByName.get(decode(name));
    }
    if (rest.startsWith('id:group:')) return account.groupsById.get(rest.slice('id:group:'.length));
    return undefined;
  }
}
