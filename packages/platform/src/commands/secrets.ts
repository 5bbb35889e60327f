import { generateSecretKeyEntry } from "@platform/kernel";

/**
 * `platform secrets generate-key`: a new SECRETS_KEYS entry, `<id>:<base64 of 32 random bytes>`, on standard
 * output alone (so that `$(platform secrets generate-key)` captures it); how to use it goes to standard error.
 * It needs no configuration and touches no database: rotation is putting the entry first in SECRETS_KEYS.
 *
 * @example
 * platform secrets generate-key --id k2   // k2:3q2+7w…=
 */
export function secretsGenerateKey(o: { id?: string }): void {
  const entry = generateSecretKeyEntry(o.id);
  process.stdout.write(`${entry}\n`);
  process.stderr.write(
    "Put it first in SECRETS_KEYS (comma-separated) on every instance, keeping the previous keys after it until the values they sealed are re-sealed.\n",
  );
}
