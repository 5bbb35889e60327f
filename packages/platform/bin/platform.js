#!/usr/bin/env node
// The `platform` command. Sources are TypeScript run through tsx's loader, so there is no build step.
import { register } from "tsx/esm/api";

register();
await import("../src/cli.ts");
