/**
 * The users of the wearables API: what the `/users` routes ask for. Rules live here (pages, what "not found"
 * means); SQL lives in the repository, HTTP in the routes. Failures are the typed errors of
 * `domain/userErrors.ts`.
 */
import { type OffsetPage, offsetPage, pageOffset } from "../domain/offsetPage.ts";
import { UserNotFoundError } from "../domain/userErrors.ts";
import type {
  ListUsersParameters,
  NewUser,
  UserConnectionSummary,
  UserRow,
  UsersRepository,
} from "../store/usersRepository.ts";

/** A page of the users list: 1-based `page` of `limit` users, sorted and filtered. */
export interface ListUsersQuery extends Omit<ListUsersParameters, "offset"> {
  page: number;
}

export function createUsersService(users: UsersRepository) {
  return {
    list: async ({ page, ...query }: ListUsersQuery): Promise<OffsetPage<UserRow>> => {
      const { rows, total } = await users.list({ ...query, offset: pageOffset(page, query.limit) });
      return offsetPage(rows, total, page, query.limit);
    },

    /** The users' connections by user id (`include=connections`). */
    connectionsOf: (userIds: readonly string[]): Promise<Map<string, UserConnectionSummary[]>> =>
      users.connectionsOf(userIds),

    /** @throws {UserNotFoundError} */
    get: async (userId: string): Promise<UserRow> => {
      const user = await users.get(userId);
      if (!user) throw new UserNotFoundError(userId);
      return user;
    },

    /** @throws {UserAlreadyExistsError} when the email (whatever its case) or the external_user_id is taken. */
    create: (user: NewUser): Promise<UserRow> => users.create(user),

    /**
     * Sets the given fields (null clears one, an absent one stays).
     * @throws {UserNotFoundError}
     * @throws {UserAlreadyExistsError} when the new email or external_user_id is another user's.
     */
    update: async (userId: string, changes: NewUser): Promise<UserRow> => {
      const user = await users.update(userId, changes);
      if (!user) throw new UserNotFoundError(userId);
      return user;
    },

    /**
     * Deletes the user with all their data; the user as it was.
     * @throws {UserNotFoundError}
     */
    delete: async (userId: string): Promise<UserRow> => {
      const user = await users.delete(userId);
      if (!user) throw new UserNotFoundError(userId);
      return user;
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
