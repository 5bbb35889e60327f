/**
 * The brokerage's end users: creation (rules on email, password, paper accounts and starting cash; the
 * password hashed with argon2id) and password login. SQL lives in the repository; failures are the typed
 * errors of `domain/brokerageErrors.ts`.
 */
import { BrokerageInputError } from "../domain/brokerageErrors.ts";
import { hashPassword, MAX_PASSWORD_LENGTH, verifyPassword } from "../domain/passwords.ts";
import { randomSecret } from "../domain/secrets.ts";
import type { UserRow, UsersRepository, UserWithAccounts } from "../store/usersRepository.ts";

/** Shortest password accepted, in characters (NIST SP 800-63B's minimum for a user-chosen secret). */
export const MIN_PASSWORD_LENGTH = 8;
/** Longest email accepted (RFC 5321's path limit). */
export const MAX_EMAIL_LENGTH = 254;
/** Most paper accounts a user is created with. */
export const MAX_PAPER_ACCOUNTS = 10;

/** One `@`, no whitespace or control characters, a dot in the domain: the mailbox shapes worth accepting. */
const EMAIL = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;
/** A non-negative amount with at most two decimals that fits `numeric(20, 2)`. */
const AMOUNT = /^\d{1,18}(\.\d{1,2})?$/;

export interface NewUser {
  email: string;
  password: string;
  /** Paper accounts besides the live account; default 1. */
  paperAccounts?: number;
  /** Cash of every new account (decimal string). */
  startingCash: string;
}

/** The email as stored: surrounding spaces removed (its case is kept; lookups ignore case). */
function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (trimmed.length > MAX_EMAIL_LENGTH || !EMAIL.test(trimmed)) {
    throw new BrokerageInputError("email", `"${email.slice(0, 80)}" is not an email address`);
  }
  return trimmed;
}

function checkPassword(password: string): void {
  // Characters as a person counts them (code points) for the minimum; UTF-16 units, as verifyPassword
  // bounds them, for the maximum.
  if ([...password].length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new BrokerageInputError(
      "password",
      `a password has ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
}

function checkNewUser(user: NewUser) {
  const paperAccounts = user.paperAccounts ?? 1;
  if (!Number.isInteger(paperAccounts) || paperAccounts < 1 || paperAccounts > MAX_PAPER_ACCOUNTS) {
    throw new BrokerageInputError("paperAccounts", `a user has 1 to ${MAX_PAPER_ACCOUNTS} paper accounts`);
  }
  if (!AMOUNT.test(user.startingCash)) {
    throw new BrokerageInputError(
      "startingCash",
      `starting cash "${user.startingCash}" is not an amount such as 100000 or 2500.50`,
    );
  }
  checkPassword(user.password);
  return { email: checkEmail(user.email), paperAccounts };
}

export function createUsersService({ users }: { users: UsersRepository }) {
  // Verified against when the email is unknown, so a login takes as long whether the account exists or not.
  // Made on first need (an argon2id hash costs ~50 ms): not at every start or operator command.
  let decoy: Promise<string> | undefined;
  const decoyHash = () => {
    decoy ??= hashPassword(randomSecret());
    return decoy;
  };

  return {
    /**
     * Creates a user with one live account and `paperAccounts` paper accounts.
     * @throws {BrokerageInputError} for a malformed email, a password of the wrong length, a bad count or amount.
     * @throws {UserAlreadyExistsError} when the email (whatever its case) is taken.
     */
    async create(user: NewUser): Promise<UserWithAccounts> {
      const { email, paperAccounts } = checkNewUser(user);
      return users.insertWithAccounts({
        email,
        passwordHash: await hashPassword(user.password),
        startingCash: user.startingCash,
        paperAccounts,
      });
    },

    /** Every user with its accounts. */
    list: (): Promise<UserWithAccounts[]> => users.list(),

    get: (userId: string): Promise<UserRow | undefined> => users.get(userId),

    /**
     * The user whose email and password these are, or undefined. The password is always verified (against
     * a decoy hash for an unknown email) and compared in constant time, so the answer's timing does not
     * tell which emails have an account.
     */
    async authenticate(email: string, password: string): Promise<UserRow | undefined> {
      const user = email.length <= MAX_EMAIL_LENGTH ? await users.findByEmail(email.trim()) : undefined;
      const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
      if (!user || !matches) return undefined;
      return { id: user.id, email: user.email, created_at: user.created_at };
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
