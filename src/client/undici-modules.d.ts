/**
 * Types for the two undici modules src/client/transport.ts imports one by one (undici ships
 * declarations for its package entry only). Both are CommonJS: `module.exports` is the default.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";

  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module "undici/lib/api/api-request.js" {
  import type { Agent, Dispatcher } from "undici";

  function request(this: Agent, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
