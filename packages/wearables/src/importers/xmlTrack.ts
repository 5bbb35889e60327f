/**
 * The streaming XML reading GPX and TCX share: a non-validating `saxes` parser that refuses any DOCTYPE (so no
 * entity expansion, internal or external, can happen) and reports element paths by local name, namespace
 * prefixes dropped (`gpxtpx:hr` and `ns3:hr` are both `hr`).
 */
import { SaxesParser } from "saxes";
import { WorkoutFileError, type WorkoutFileKind, type XmlInput, xmlChunks } from "./workoutFile.ts";

export interface XmlHandlers {
  /** An element opened; `path` holds the local names from the root down to it. */
  open?(path: readonly string[], attributes: Record<string, string>): void;
  /** An element closed with its trimmed text content (text of its own, children excluded). */
  close(path: readonly string[], text: string): void;
}

const localName = (name: string): string => {
  const i = name.indexOf(":");
  return i < 0 ? name : name.slice(i + 1);
};

/** Streams `input` through `handlers`; throws `WorkoutFileError` (`malformed`) for anything not well-formed. */
export async function readXml(kind: WorkoutFileKind, input: XmlInput, handlers: XmlHandlers): Promise<void> {
  const parser = new SaxesParser({ position: true });
  const path: string[] = [];
  const texts: string[] = [];
  let failure: Error | null = null;
  parser.on("error", (e) => {
    failure ??= e;
  });
  parser.on("doctype", () => {
    failure ??= new Error("a DOCTYPE is not allowed in a workout file");
  });
  parser.on("opentag", (tag) => {
    path.push(localName(tag.name));
    texts.push("");
    const attributes: Record<string, string> = {};
    for (const [k, v] of Object.entries(tag.attributes)) attributes[localName(k)] = String(v);
    handlers.open?.(path, attributes);
  });
  parser.on("text", (t) => {
    if (texts.length > 0) texts[texts.length - 1] += t;
  });
  parser.on("cdata", (t) => {
    if (texts.length > 0) texts[texts.length - 1] += t;
  });
  parser.on("closetag", () => {
    handlers.close(path, (texts.pop() ?? "").trim());
    path.pop();
  });
  const label = kind.toUpperCase();
  try {
    // Devices and exporters put a BOM or blank lines before the XML declaration (a Polar V800 TCX via Strava has
    // ten spaces), which XML forbids; what comes before the first `<` is dropped when it is only that.
    let head = true;
    for await (const raw of xmlChunks(input)) {
      let chunk = raw;
      if (head) {
        chunk = chunk.replace(/^[\uFEFF\s]+/, "");
        if (chunk === "") continue;
        head = false;
      }
      parser.write(chunk);
      if (failure) break;
    }
    if (!failure) parser.close();
  } catch (e) {
    if (e instanceof WorkoutFileError) throw e;
    failure ??= e instanceof Error ? e : new Error(String(e));
  }
  if (failure) {
    throw new WorkoutFileError(kind, "malformed", `${label} file is not well-formed XML: ${failure.message}`, {
      cause: failure,
    });
  }
}
