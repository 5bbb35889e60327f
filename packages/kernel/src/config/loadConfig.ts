import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Config, type ConfigKey, options } from "./options.ts";
import { ConfigError } from "./parsers.ts";

export interface LoadConfigParameters {
  /** Environment to read; default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * JSON file with option names as keys (`{"wearablesPort": 9000}`); environment variables win over it.
   * Default: `$PLATFORM_CONFIG`, else `./platform.config.json` when it exists.
   */
  file?: string;
  /** Values that win over everything (used by tests and CLI flags). */
  overrides?: Partial<Config>;
}

/**
 * Reads and validates every option of `options.ts`.
 *
 * @example
 * const config = loadConfig(); // throws ConfigError('WEARABLES_PORT must be an integer (got "x")')
 */
export function loadConfig(parameters: LoadConfigParameters = {}): Config {
  const env = parameters.env ?? process.env;
  const fromFile = readConfigFile(parameters.file ?? env.PLATFORM_CONFIG);
  const config: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(options) as [ConfigKey, (typeof options)[ConfigKey]][]) {
    const raw = env[def.env] ?? fromFile[key];
    if (raw === undefined || raw === "") {
      config[key] = def.default;
      continue;
    }
    try {
      config[key] = (def.parse as (raw: string, env: string) => unknown)(raw, def.env);
    } catch (error) {
      const source = env[def.env] !== undefined ? `environment variable ${def.env}` : `config file option "${key}"`;
      throw new ConfigError(`Invalid configuration: ${source} ${(error as Error).message}`);
    }
  }
  return { ...(config as Config), ...parameters.overrides };
}

function readConfigFile(path: string | undefined): Record<string, string> {
  const file = path ?? (existsSync("platform.config.json") ? "platform.config.json" : undefined);
  if (!file) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(resolve(file), "utf8"));
  } catch (error) {
    throw new ConfigError(`Invalid configuration: cannot read config file ${file}: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`Invalid configuration: config file ${file} must hold a JSON object`);
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(key in options)) {
      throw new ConfigError(`Invalid configuration: unknown option "${key}" in ${file} (see \`platform config\`)`);
    }
    out[key] = Array.isArray(value) ? value.join(",") : String(value);
  }
  return out;
}

/** Rows for `platform config`: every option with its current value (secrets masked). */
export function describeConfig(config: Config) {
  return (Object.entries(options) as [ConfigKey, (typeof options)[ConfigKey]][]).map(([key, def]) => {
    const value = config[key];
    const shown =
      value === undefined ? "" : def.secret ? "(set)" : Array.isArray(value) ? value.join(",") : String(value);
    const fallback =
      def.default === undefined ? "" : Array.isArray(def.default) ? def.default.join(",") : String(def.default);
    return { option: key, env: def.env, default: fallback, value: shown, description: def.description };
  });
}
