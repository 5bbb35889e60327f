/**
 * SQL for `wearables.users`. The sync fields of a user (last_synced_at, last_synced_provider,
 * has_active_connection) are derived from its provider connections, as Open Wearables does.
 * Constraint violations become the domain's errors here (see `domain/userErrors.ts`).
 */
import { constraintViolation, type Database } from "@platform/kernel";
import { UserAlreadyExistsError } from "../domain/userErrors.ts";

export interface UserRow {
  id: string;
  created_at: Date;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  external_user_id: string | null;
  last_synced_at: Date | null;
  last_synced_provider: string | null;
  has_active_connection: boolean;
}

/** A user's connection as the anchor's `UserConnectionSummary` (`include=connections`). */
export interface UserConnectionSummary {
  provider: string;
  status: "active" | "revoked" | "expired";
  last_synced_at: Date | null;
}

export const USER_SORT_COLUMNS = ["created_at", "email", "first_name", "last_name", "name", "last_synced_at"] as const;
export type UserSortColumn = (typeof USER_SORT_COLUMNS)[number];

export interface ListUsersParameters {
  offset: number;
  limit: number;
  sortBy: UserSortColumn;
  sortOrder: "asc" | "desc";
  /** Case-insensitive substring of first name, last name or email. */
  search?: string | undefined;
  /** Exact email, case-insensitive. */
  email?: string | undefined;
  externalUserId?: string | undefined;
  /** Users with a connection to one of these providers (and `connectionStatus`, when given, on that connection). */
  providers?: readonly string[] | undefined;
  connectionStatus?: "active" | "revoked" | "expired" | undefined;
  hasActiveConnection?: boolean | undefined;
  /** Users whose last sync (of any connection) is before this instant; never-synced users are not included. */
  lastSyncedBefore?: Date | undefined;
}

export interface NewUser {
  first_name?: string | null | undefined;
  last_name?: string | null | undefined;
  email?: string | null | undefined;
  external_user_id?: string | null | undefined;
}

const SELECT_USER = `
  SELECT u.id, u.created_at, u.first_name, u.last_name, u.email, u.external_user_id,
         s.last_synced_at, s.provider AS last_synced_provider,
         EXISTS (SELECT 1 FROM wearables.user_connections a WHERE a.user_id = u.id AND a.status = 'active')
           AS has_active_connection
  FROM wearables.users u
  LEFT JOIN LATERAL (
    SELECT c.last_synced_at, c.provider FROM wearables.user_connections c
    WHERE c.user_id = u.id AND c.last_synced_at IS NOT NULL
    ORDER BY c.last_synced_at DESC LIMIT 1
  ) s ON true`;

const SORT_EXPRESSION: Record<UserSortColumn, string> = {
  created_at: "u.created_at",
  email: "u.email",
  first_name: "u.first_name",
  last_name: "u.last_name",
  // The anchor's `name`: first name, then last name.
  name: "lower(concat_ws(' ', u.first_name, u.last_name))",
  last_synced_at: "s.last_synced_at",
};

/** `%` and `_` in user input match themselves, not any text. */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function whereClause(
  p: Pick<
    ListUsersParameters,
    | "search"
    | "email"
    | "externalUserId"
    | "providers"
    | "connectionStatus"
    | "hasActiveConnection"
    | "lastSyncedBefore"
  >,
) {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (p.search) {
    params.push(`%${escapeLike(p.search)}%`);
    const n = params.length;
    conditions.push(`(u.first_name ILIKE $${n} OR u.last_name ILIKE $${n} OR u.email ILIKE $${n})`);
  }
  if (p.email) {
    params.push(p.email);
    conditions.push(`lower(u.email) = lower($${params.length})`);
  }
  if (p.externalUserId) {
    params.push(p.externalUserId);
    conditions.push(`u.external_user_id = $${params.length}`);
  }
  if (p.providers?.length || p.connectionStatus) {
    const on: string[] = [];
    if (p.providers?.length) {
      params.push(p.providers);
      on.push(`c.provider = ANY($${params.length}::text[])`);
    }
    if (p.connectionStatus) {
      params.push(p.connectionStatus);
      on.push(`c.status = $${params.length}`);
    }
    conditions.push(
      `EXISTS (SELECT 1 FROM wearables.user_connections c WHERE c.user_id = u.id AND ${on.join(" AND ")})`,
    );
  }
  if (p.hasActiveConnection !== undefined) {
    conditions.push(
      `${p.hasActiveConnection ? "" : "NOT "}EXISTS (SELECT 1 FROM wearables.user_connections c WHERE c.user_id = u.id AND c.status = 'active')`,
    );
  }
  if (p.lastSyncedBefore) {
    params.push(p.lastSyncedBefore);
    conditions.push(
      `(SELECT max(c.last_synced_at) FROM wearables.user_connections c WHERE c.user_id = u.id) < $${params.length}`,
    );
  }
  return { sql: conditions.length ? `WHERE ${conditions.join(" AND ")}` : "", params };
}

/** The two statements of a users list page; exported so the benchmark baseline runs exactly them. */
export function listUsersSql(p: ListUsersParameters) {
  const where = whereClause(p);
  const direction = p.sortOrder === "asc" ? "ASC" : "DESC";
  // created_at is never null: a plain ORDER BY lets PostgreSQL walk users_created_at_idx (either way)
  // and stop after one page; NULLS LAST on it would force a sort of every row.
  const nulls = p.sortBy === "created_at" ? "" : " NULLS LAST";
  const n = where.params.length;
  return {
    page: {
      text: `${SELECT_USER} ${where.sql}
        ORDER BY ${SORT_EXPRESSION[p.sortBy]} ${direction}${nulls}, u.id ${direction}
        LIMIT $${n + 1} OFFSET $${n + 2}`,
      values: [...where.params, p.limit, p.offset],
    },
    count: { text: `SELECT count(*) AS total FROM wearables.users u ${where.sql}`, values: where.params },
  };
}

export const GET_USER_SQL = `${SELECT_USER} WHERE u.id = $1`;

/** The unique indexes of `wearables.users` (migrations/0001_users.sql) and the field each one guards. */
const UNIQUE_FIELD_BY_INDEX: Record<string, UserAlreadyExistsError["field"]> = {
  users_email_key: "email",
  users_external_user_id_key: "external_user_id",
};

/** `error` as a domain error when it is a known unique violation; else `error` itself. */
function toDomainError(error: unknown): unknown {
  const violation = constraintViolation(error);
  const field = violation?.kind === "unique" ? UNIQUE_FIELD_BY_INDEX[violation.constraint ?? ""] : undefined;
  return field ? new UserAlreadyExistsError(field, { cause: error }) : error;
}

export function createUsersRepository(db: Database) {
  return {
    async list(p: ListUsersParameters): Promise<{ rows: UserRow[]; total: number }> {
      const sql = listUsersSql(p);
      const [rows, count] = await Promise.all([
        db.query<UserRow>(sql.page.text, sql.page.values),
        db.query<{ total: string }>(sql.count.text, sql.count.values),
      ]);
      return { rows, total: Number(count[0]?.total ?? 0) };
    },

    /** The connections of each user (`include=connections`), oldest first. */
    async connectionsOf(userIds: readonly string[]): Promise<Map<string, UserConnectionSummary[]>> {
      const rows = await db.query<UserConnectionSummary & { user_id: string }>(
        `SELECT user_id, provider, status, last_synced_at FROM wearables.user_connections
         WHERE user_id = ANY($1::uuid[]) ORDER BY created_at, provider`,
        [userIds],
      );
      const out = new Map<string, UserConnectionSummary[]>(userIds.map((id) => [id, []]));
      for (const { user_id, ...c } of rows) out.get(user_id)?.push(c);
      return out;
    },

    async get(id: string): Promise<UserRow | undefined> {
      const [row] = await db.query<UserRow>(GET_USER_SQL, [id]);
      return row;
    },

    /** @throws {UserAlreadyExistsError} when the email (whatever its case) or the external_user_id is taken. */
    async create(user: NewUser): Promise<UserRow> {
      const [row] = await db
        .query<UserRow>(
          `INSERT INTO wearables.users (first_name, last_name, email, external_user_id)
           VALUES ($1, $2, $3, $4)
           RETURNING id, created_at, first_name, last_name, email, external_user_id,
                     NULL::timestamptz AS last_synced_at, NULL::text AS last_synced_provider,
                     false AS has_active_connection`,
          [user.first_name ?? null, user.last_name ?? null, user.email ?? null, user.external_user_id ?? null],
        )
        .catch((error) => {
          throw toDomainError(error);
        });
      return row as UserRow;
    },

    /**
     * Sets the fields `changes` holds (null clears one; an absent field stays); the user as it is then, or
     * undefined when there is none of that id.
     * @throws {UserAlreadyExistsError} when the new email (whatever its case) or external_user_id is taken.
     */
    async update(id: string, changes: NewUser): Promise<UserRow | undefined> {
      const fields = (["first_name", "last_name", "email", "external_user_id"] as const).filter(
        (f) => changes[f] !== undefined,
      );
      if (fields.length > 0) {
        const set = fields.map((f, i) => `${f} = $${i + 2}`).join(", ");
        const updated = await db
          .query<{ id: string }>(`UPDATE wearables.users SET ${set} WHERE id = $1 RETURNING id`, [
            id,
            ...fields.map((f) => changes[f] ?? null),
          ])
          .catch((error) => {
            throw toDomainError(error);
          });
        if (updated.length === 0) return undefined;
      }
      return this.get(id);
    },

    /**
     * Deletes the user and, by the foreign keys' cascades, everything of theirs (connections, data sources,
     * samples, events, scores, imports); the user as it was, or undefined when there is none of that id.
     */
    async delete(id: string): Promise<UserRow | undefined> {
      return db.transaction(async (tx) => {
        const [row] = await tx.query<UserRow>(`${GET_USER_SQL} FOR UPDATE OF u`, [id]);
        if (!row) return undefined;
        await tx.query("DELETE FROM wearables.users WHERE id = $1", [id]);
        return row;
      });
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
