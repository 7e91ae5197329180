/**
 * What a writer's dry run reports: the rules this server checked and passed, and what only the
 * API can judge (it has no endpoint to ask whether a code, order, user or item exists). Each is a
 * short phrase an agent reads as is, in the text and in structuredContent.
 */
export interface WriteChecks {
  checked: string[];
  not_checked: string[];
}
