import { type Config, describeConfig } from "@platform/kernel";
import { createTable } from "./table.ts";

/** `platform config`: every option, its environment variable, default, value in effect and meaning. */
export function configCommand(config: Config, o: { json?: boolean }) {
  const rows = describeConfig(config);
  if (o.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const table = createTable(["env", "default", "value", "description"], {
    colWidths: [24, 14, 20, 70],
    wordWrap: true,
  });
  for (const r of rows) table.push([r.env, r.default, r.value, r.description]);
  process.stdout.write(`${table.toString()}\n`);
}
