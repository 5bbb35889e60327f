/**
 * The name of the `platform` command this process runs (`platform keys create`), set once by the CLI before
 * its action runs. A folder lock names its holder with it; arguments are left out (a password may be one).
 */
let current = "platform";

export function setCommandName(name: string): void {
  current = name;
}

export function commandName(): string {
  return current;
}
