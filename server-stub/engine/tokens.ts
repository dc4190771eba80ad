/**
 * Tokens of the trigger and device interface: refresh tokens (never expire; issued through
 * fixtures or the control API to a user of an account, revocable) and the access and id
 * tokens exchanged for them (2 hours on the stub's clock). Each belongs to one environment,
 * one account and one user. Pure: no HTTP here, time from the injected clock.
 */
import type { Clock } from '../../clock/clock.ts';
import type { EnvironmentName } from '../../protocol/control-api.schema.ts';
import type { IdSource } from '../../protocol/ids.ts';
import type { SnapshotTokens } from '../../protocol/snapshot.schema.ts';
import type { TokensIssued } from '../../protocol/token-api.schema.ts';

export type { EnvironmentName };

/** The spec's access-token lifetime. */
export const ACCESS_TOKEN_LIFETIME_MS = 2 * 3600 * 1000;
/**
 * How long an expired access or id token is still told apart from an unknown one ("has
 * expired" rather than "is not known"); after that it is forgotten, so a stub that hands out
 * tokens for days stays flat (decision H7).
 */
export const EXPIRED_TOKEN_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** The user a refresh token was issued to (what `oauth2/validate` answers as `userid`). */
export interface TokenUser {
  userId: string;
  email: string;
}

/**
 * The user of a refresh token for which the fixtures or the control API name none, or name
 * only part: `user-<subscriber_id>`, and `<user id>@badge-sim.test` (a domain reserved for
 * tests, RFC 2606).
 */
function tokenUser(subscriberId: string, given: Partial<TokenUser> = {}): TokenUser {
  const userId = given.userId ?? `user-${subscriberId}`;
  return { userId, email: given.email ?? `${userId}@badge-sim.test` };
}

interface RefreshToken {
  subscriberId: string;
  environment: EnvironmentName;
  user: TokenUser;
  revoked: boolean;
}

/** What a valid access token grants, and to whom. */
export interface AccessGrant {
  subscriberId: string;
  user: TokenUser;
  /** The client id the token was requested with. */
  clientId: string;
  /**
   * Whole seconds it has left, rounded down: never more than it has, so 0 in its last second
   * (at its end it is expired, not 0).
   */
  secondsLeft: number;
}

interface AccessToken {
  subscriberId: string;
  user: TokenUser;
  clientId: string;
  environment: EnvironmentName;
  /** From this instant on (ms on the stub's clock) it is expired. */
  expiresAt: number;
  kind: 'access' | 'id';
}

/** Why a token exchange or a bearer credential is refused; the HTTP layer maps these. */
export type TokenRefusal =
  | 'unknown_refresh_token'
  | 'revoked_refresh_token'
  | 'other_environment'
  | 'missing'
  | 'unknown'
  | 'expired'
  | 'id_token';

/** What oauth2/token answers (its shape is the token interface's, in protocol/). */
export type IssuedTokens = TokensIssued;

export class TokenStore {
  readonly #refresh = new Map<string, RefreshToken>();
  readonly #access = new Map<string, AccessToken>();
  /** How many times `clear()` has run: marks the tokens issued since (see `#mark`). */
  #generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ids: IdSource,
  ) {}

  /** Registers a refresh token (from fixtures or the control API), issued to `user`. */
  addRefreshToken(
    token: string,
    subscriberId: string,
    environment: EnvironmentName,
    user: Partial<TokenUser> = {},
  ): void {
    this.#refresh.set(token, {
      subscriberId,
      environment,
      user: tokenUser(subscriberId, user),
      revoked: false,
    });
  }

  /** Makes a new refresh token for a user of an account in an environment. */
  issueRefreshToken(
    subscriberId: string,
    environment: EnvironmentName,
    user: Partial<TokenUser> = {},
  ): string {
    const token = `rt_${this.ids.tokenWord()}${this.ids.tokenWord()}${this.#mark()}`;
    this.addRefreshToken(token, subscriberId, environment, user);
    return token;
  }

  /** Revokes a refresh token; false if it is not known. */
  revokeRefreshToken(token: string): boolean {
    const known = this.#refresh.get(token);
    if (!known) return false;
    known.revoked = true;
    return true;
  }

  /** POST oauth2/token with grant_type refresh_token, by the client `clientId`. */
  exchange(
    refreshToken: string,
    environment: EnvironmentName,
    clientId: string,
  ): IssuedTokens | TokenRefusal {
    const known = this.#refresh.get(refreshToken);
    if (!known) return 'unknown_refresh_token';
    if (known.revoked) return 'revoked_refresh_token';
    if (known.environment !== environment) return 'other_environment';
    this.#forgetLongExpired();
    const expiresAt = this.clock.now() + ACCESS_TOKEN_LIFETIME_MS;
    const access = `at_${this.ids.tokenWord()}${this.ids.tokenWord()}${this.#mark()}`;
    const id = `eyJhbGciOiJub25lIn0.${this.ids.tokenHex()}${this.#mark()}.`;
    const grant = { subscriberId: known.subscriberId, user: known.user, clientId, expiresAt };
    this.#access.set(access, { ...grant, environment, kind: 'access' });
    this.#access.set(id, { ...grant, environment, kind: 'id' });
    return {
      access_token: access,
      id_token: id,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_LIFETIME_MS / 1000,
    };
  }

  /**
   * What a bearer credential grants in an environment (the API host and oauth2/validate ask
   * the same), or why it grants nothing.
   */
  authorise(bearer: string | undefined, environment: EnvironmentName): AccessGrant | TokenRefusal {
    if (!bearer) return 'missing';
    const token = this.#access.get(bearer);
    if (!token) return 'unknown';
    if (token.kind === 'id') return 'id_token';
    if (token.environment !== environment) return 'other_environment';
    const left = token.expiresAt - this.clock.now();
    if (left <= 0) return 'expired';
    const { subscriberId, user, clientId } = token;
    return { subscriberId, user, clientId, secondsLeft: Math.floor(left / 1000) };
  }

  /** The account a refresh, access or id token was issued for (the request journal's `account`). */
  ownerOf(token: string): string | undefined {
    return (this.#access.get(token) ?? this.#refresh.get(token))?.subscriberId;
  }

  /** Access and id tokens held now, expired ones included (for memory tests). */
  get issuedCount(): number {
    return this.#access.size;
  }

  /**
   * Tokens are held in the order they were issued, and every one lives as long, so the ones
   * long expired are at the front: drop them from there (amortised O(1) per token issued).
   */
  #forgetLongExpired(): void {
    const horizon = this.clock.now() - EXPIRED_TOKEN_RETENTION_MS;
    for (const [token, { expiresAt }] of this.#access) {
      if (expiresAt >= horizon) return;
      this.#access.delete(token);
    }
  }

  /**
   * Forgets issued tokens and revocations (refresh tokens come again from the fixtures), and
   * starts a new generation: a seeded stream repeats its ids after a reset, so tokens issued
   * from now on carry the generation (`_r1`, `_r2`, …) and never equal a token issued before
   * in this process, which granted another account perhaps. Before the first reset tokens
   * carry no mark: a seeded run without resets issues the very tokens it always did.
   */
  clear(): void {
    this.#refresh.clear();
    this.#access.clear();
    this.#generation++;
  }

  /** Every token held, in the order issued, and the generation (a world snapshot's, WS5). */
  toSnapshot(): SnapshotTokens {
    return {
      generation: this.#generation,
      refresh: [...this.#refresh].map(([token, r]) => ({
        token,
        subscriber_id: r.subscriberId,
        environment: r.environment,
        user_id: r.user.userId,
        email: r.user.email,
        revoked: r.revoked,
      })),
      access: [...this.#access].map(([token, a]) => ({
        token,
        kind: a.kind,
        subscriber_id: a.subscriberId,
        environment: a.environment,
        user_id: a.user.userId,
        email: a.user.email,
        client_id: a.clientId,
        expires_at: a.expiresAt,
      })),
    };
  }

  /** Holds the tokens of a snapshot instead of its own. */
  restore(snapshot: SnapshotTokens): void {
    this.clear();
    this.#generation = snapshot.generation;
    for (const r of snapshot.refresh) {
      this.#refresh.set(r.token, {
        subscriberId: r.subscriber_id,
        environment: r.environment,
        user: { userId: r.user_id, email: r.email },
        revoked: r.revoked,
      });
    }
    for (const a of snapshot.access) {
      this.#access.set(a.token, {
        subscriberId: a.subscriber_id,
        user: { userId: a.user_id, email: a.email },
        clientId: a.client_id,
        environment: a.environment,
        expiresAt: a.expires_at,
        kind: a.kind,
      });
    }
  }

  #mark(): string {
    return this.#generation === 0 ? '' : `_r${this.#generation}`;
  }
}
