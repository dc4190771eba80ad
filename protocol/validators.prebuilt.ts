/**
 * Validators compiled when the package is built, by `prebuiltKey` (protocol/validator.ts): none
 * here. `npm run build` replaces this module in dist/ (and in the bundled command) with Ajv's
 * standalone code of the schemas that a stub, the catalogue's scenarios and their badges
 * compile (scripts/prebuild-validators.mjs), so the installed package compiles none of them
 * when it starts. From the sources, every schema is compiled when it is first used.
 */
import type { ValidateFunction } from 'ajv';

export const PREBUILT: Readonly<Record<string, ValidateFunction>> = {};
