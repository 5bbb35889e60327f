/**
 * `GET /users`, `POST /users`, `GET`, `PATCH` and `DELETE /users/{user_id}`: each route parses the request (its TypeBox schema),
 * calls one function of the users service, and shapes the answer; users errors become HTTP answers here.
 */
import { HttpError, type HttpServer } from "@platform/kernel";
import { type Static, Type } from "typebox";
import { currentProviderName, PROVIDER_INPUT_NAMES } from "../domain/providers.ts";
import { parseQueryDatetime } from "../domain/queryDates.ts";
import { UserAlreadyExistsError, UserNotFoundError } from "../domain/userErrors.ts";
import type { UsersService } from "../services/users.ts";
import { USER_SORT_COLUMNS, type UserConnectionSummary, type UserRow } from "../store/usersRepository.ts";
import { usersTag } from "./openapiTags.ts";
import { ErrorBody, Nullable, StringEnum } from "./schemas.ts";

const USER_EXAMPLE = {
  id: "3f1c5e2a-8b7d-4c2e-9a61-0d4b7e5f9c12",
  created_at: "2026-01-15T09:30:00.000Z",
  first_name: "Ada",
  last_name: "Lovelace",
  email: "ada@example.com",
  external_user_id: "ext-1",
  last_synced_at: "2026-02-01T00:00:00.000Z",
  last_synced_provider: "garmin",
  has_active_connection: true,
};

export const UserRead = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    created_at: Type.String({ format: "date-time" }),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    external_user_id: Nullable(Type.String()),
    last_synced_at: Nullable(Type.String({ format: "date-time" })),
    last_synced_provider: Nullable(Type.String()),
    has_active_connection: Type.Boolean(),
    connections: Type.Optional(
      Nullable(
        Type.Array(
          Type.Object({
            provider: Type.String(),
            status: StringEnum(["active", "revoked", "expired"]),
            last_synced_at: Nullable(Type.String({ format: "date-time" })),
          }),
          { description: "The user's connections with `include=connections`; null otherwise." },
        ),
      ),
    ),
  },
  { $id: "UserRead", examples: [USER_EXAMPLE] },
);

/** `GET /users/{user_id}`: the anchor's `UserDetailRead`. */
const UserDetailRead = Type.Object(
  {
    ...UserRead.properties,
    has_womens_health_data: Type.Boolean({
      description: "Whether the user has women's health data (menstrual cycles); none is kept yet, so false.",
    }),
  },
  { examples: [{ ...USER_EXAMPLE, connections: null, has_womens_health_data: false }] },
);

const Include = Type.Array(StringEnum(["connections"]), {
  default: [],
  maxItems: 1,
  description: "`connections`: each user's connections (provider, status, last sync).",
});

const UserCreate = Type.Object(
  {
    first_name: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    last_name: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    email: Type.Optional(Nullable(Type.String({ format: "email", maxLength: 320 }))),
    external_user_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  },
  { additionalProperties: false },
);

const UserUpdate = Type.Object(
  {
    first_name: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    last_name: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    email: Type.Optional(Nullable(Type.String({ format: "email", maxLength: 320 }))),
    external_user_id: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 255, description: "Deprecated, as in the anchor." })),
    ),
  },
  {
    additionalProperties: false,
    description: "The fields to change: null clears one, an absent one stays.",
    examples: [{ first_name: "Augusta", email: null }],
  },
);

const ListQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  sort_by: Type.Union(
    USER_SORT_COLUMNS.map((c) => Type.Literal(c)),
    { default: "created_at" },
  ),
  sort_order: Type.Union([Type.Literal("asc"), Type.Literal("desc")], { default: "desc" }),
  search: Type.Optional(Type.String({ maxLength: 255 })),
  email: Type.Optional(Type.String({ maxLength: 320 })),
  external_user_id: Type.Optional(Type.String({ maxLength: 255, description: "Deprecated." })),
  provider: Type.Optional(
    Type.Array(StringEnum(PROVIDER_INPUT_NAMES), {
      maxItems: PROVIDER_INPUT_NAMES.length,
      description: "Users with a connection to one of these providers (repeat the parameter for several).",
    }),
  ),
  connection_status: Type.Optional(
    StringEnum(["active", "revoked", "expired"], {
      description: "Users with a connection in this status (of `provider`, when given).",
    }),
  ),
  has_active_connection: Type.Optional(
    Type.Boolean({ description: "Users with (true) or without (false) an active connection." }),
  ),
  last_synced_before: Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        "Users whose last sync is before this moment (ISO 8601 or Unix seconds); never-synced users are not included.",
    }),
  ),
  include: Include,
});

const UserPath = Type.Object({ user_id: Type.String({ format: "uuid" }) });

const UserList = Type.Object(
  {
    items: Type.Array(UserRead),
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    pages: Type.Integer(),
    has_next: Type.Boolean(),
    has_prev: Type.Boolean(),
  },
  {
    examples: [{ items: [USER_EXAMPLE], total: 21, page: 2, limit: 20, pages: 2, has_next: false, has_prev: true }],
  },
);

/** Every route's answer without a valid key. */
const unauthorized = { 401: ErrorBody("Invalid or missing API key") };

const toUserRead = (user: UserRow, connections?: UserConnectionSummary[]): Static<typeof UserRead> => ({
  ...user,
  created_at: user.created_at.toISOString(),
  last_synced_at: user.last_synced_at?.toISOString() ?? null,
  connections: connections
    ? connections.map((c) => ({ ...c, last_synced_at: c.last_synced_at?.toISOString() ?? null }))
    : null,
});

/** Rethrows a users error as its HTTP answer; anything else stays an unexpected error (500). */
function throwAsHttpError(error: unknown): never {
  if (error instanceof UserAlreadyExistsError) throw new HttpError(409, error.message);
  if (error instanceof UserNotFoundError) throw new HttpError(404, error.message);
  throw error;
}

export function registerUserRoutes(app: HttpServer, users: UsersService) {
  app.get(
    "/users",
    {
      schema: {
        operationId: "listUsers",
        tags: [usersTag.name],
        summary: "List users",
        description: "Offset pagination; `search` matches first name, last name or email (case-insensitive).",
        querystring: ListQuery,
        response: { 200: UserList, 400: ErrorBody("query.limit: must be <= 100"), ...unauthorized },
      },
    },
    async (request) => {
      const q = request.query;
      let lastSyncedBefore: Date | undefined;
      try {
        lastSyncedBefore = q.last_synced_before === undefined ? undefined : parseQueryDatetime(q.last_synced_before);
      } catch (error) {
        throw new HttpError(400, `query.last_synced_before: ${(error as Error).message}`);
      }
      const page = await users.list({
        page: q.page,
        limit: q.limit,
        sortBy: q.sort_by,
        sortOrder: q.sort_order,
        search: q.search,
        email: q.email,
        externalUserId: q.external_user_id,
        providers: q.provider?.map(currentProviderName),
        connectionStatus: q.connection_status as "active" | undefined,
        hasActiveConnection: q.has_active_connection,
        lastSyncedBefore,
      });
      const connections = q.include.includes("connections")
        ? await users.connectionsOf(page.items.map((u) => u.id))
        : undefined;
      return { ...page, items: page.items.map((u) => toUserRead(u, connections?.get(u.id))) };
    },
  );

  app.post(
    "/users",
    {
      schema: {
        operationId: "createUser",
        tags: [usersTag.name],
        summary: "Create user",
        description:
          "Every field is optional. `email` (compared case-insensitively) and `external_user_id` are unique: a second " +
          "user with either answers 409.",
        body: UserCreate,
        response: {
          201: UserRead,
          400: ErrorBody('body.email: must match format "email"'),
          409: ErrorBody("User with this email already exists."),
          ...unauthorized,
        },
      },
    },
    async (request, reply) => {
      const user = await users.create(request.body).catch(throwAsHttpError);
      return reply.code(201).send(toUserRead(user));
    },
  );

  app.get(
    "/users/:user_id",
    {
      schema: {
        operationId: "getUser",
        tags: [usersTag.name],
        summary: "Get user",
        description:
          "The user with its sync fields, derived from its provider connections (`include=connections` lists them).",
        params: UserPath,
        querystring: Type.Object({ include: Include }),
        response: {
          200: UserDetailRead,
          400: ErrorBody('path.user_id: must match format "uuid"'),
          404: ErrorBody(`User with ID: ${USER_EXAMPLE.id} not found.`),
          ...unauthorized,
        },
      },
    },
    async (request) => {
      const user = await users.get(request.params.user_id).catch(throwAsHttpError);
      const connections = request.query.include.includes("connections")
        ? (await users.connectionsOf([user.id])).get(user.id)
        : undefined;
      return { ...toUserRead(user, connections), has_womens_health_data: false };
    },
  );

  app.patch(
    "/users/:user_id",
    {
      schema: {
        operationId: "updateUser",
        tags: [usersTag.name],
        summary: "Update user",
        description:
          "Changes the fields the body holds (null clears one, an absent one stays) and answers the user. The " +
          "uniqueness of `email` and `external_user_id` holds as on create (409).",
        params: UserPath,
        body: UserUpdate,
        response: {
          200: UserRead,
          400: ErrorBody('body.email: must match format "email"'),
          404: ErrorBody(`User with ID: ${USER_EXAMPLE.id} not found.`),
          409: ErrorBody("User with this email already exists."),
          ...unauthorized,
        },
      },
    },
    async (request) => toUserRead(await users.update(request.params.user_id, request.body).catch(throwAsHttpError)),
  );

  app.delete(
    "/users/:user_id",
    {
      schema: {
        operationId: "deleteUser",
        tags: [usersTag.name],
        summary: "Delete user",
        description:
          "Deletes the user with everything of theirs (connections, data sources, samples, workouts, sleep, " +
          "scores, imports) and answers the user as it was.",
        params: UserPath,
        response: {
          200: UserRead,
          400: ErrorBody('path.user_id: must match format "uuid"'),
          404: ErrorBody(`User with ID: ${USER_EXAMPLE.id} not found.`),
          ...unauthorized,
        },
      },
    },
    async (request) => toUserRead(await users.delete(request.params.user_id).catch(throwAsHttpError)),
  );
}
