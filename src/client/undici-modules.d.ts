/**
 * The type of the undici module src/client/transport.ts imports on its own (undici ships
 * declarations for its package entry only). CommonJS: `module.exports` is the default.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";

  const AgentClass: typeof Agent;
  export default AgentClass;
}
