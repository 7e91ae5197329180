/** The package version (kept equal to package.json's by test/unit/version.test.ts). */
export const VERSION = "0.1.0";
