// Types of src/index.js. The API's own types and the operation methods are
// generated from docs/openapi.json into generated.d.ts.
import type { Operations, CallOptions, RetrieveItem, FeedbackResult } from "./generated.js";

export * from "./generated.js";

export interface ClientOptions {
  /** The server, e.g. "http://127.0.0.1:7777". */
  baseUrl: string;
  /** An API key from `mnemon keys create`; it fixes the namespace and role. */
  apiKey?: string;
  /** Open mode only (no keys configured): the namespace to act in. */
  namespace?: string;
  /** Extra tries of an idempotent call (GET, DELETE) after a network error or a 429/502/503/504 (default 3). */
  retries?: number;
  /** First backoff in milliseconds, doubled per try with jitter (default 100); Retry-After wins. */
  backoffMs?: number;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof fetch;
}

/** An API answer that is not a success: the problem+json body, typed. */
export declare class MnemonError extends Error {
  /** HTTP status. */
  status: number;
  /** Stable machine-readable code, e.g. "not_found", "invalid_request", "rate_limited". */
  code: string;
  title: string;
  detail: string;
  type: string;
  requestId: string;
}

export interface Client extends Operations {}
export declare class Client {
  constructor(opts: ClientOptions);
  baseUrl: string;
  /** Calls one operation by its operationId with its path, query and body arguments. */
  call(operationId: keyof Operations, args?: Record<string, unknown>, options?: CallOptions): Promise<unknown>;
}

export interface AgentOptions {
  sessionId?: string;
  agentId?: string;
  userId?: string;
  projectId?: string;
  taskType?: string;
  /** Token budget of the packed context (default 1500). */
  tokenBudget?: number;
  /** Most items retrieved (default 10). */
  limit?: number;
}

export interface PreTaskResult {
  context: string;
  retrievalId: string;
  items: RetrieveItem[];
  tokensUsed: number;
}

export interface TaskEvent {
  kind: string;
  content: string;
  occurred_at?: string;
  speaker?: string;
  metadata?: Record<string, string>;
}

export interface PostTaskInput {
  /** The agent's final output. */
  output?: string;
  /** Whether the task succeeded (default true). */
  success?: boolean;
  /** Extra events of the task's log (tool calls, results), in order. */
  events?: TaskEvent[];
  /** The task_result event's text (default "task success" / "task failure"). */
  summary?: string;
  /** Answer only once extraction has finished. */
  wait?: boolean;
  /** Also send feedback for preTask's retrieval: helpful on success, harmful on failure. */
  feedback?: boolean;
  /** With feedback on a failure: how bad it was, 0 to 1 (default 1). */
  severity?: number;
}

export interface PostTaskResult {
  episodeIds: string[];
  jobId: string;
  retrievalId: string;
  /** With feedback: what the server applied. */
  feedback?: FeedbackResult;
}

/** Two calls around an agent's task: preTask before, postTask after. */
export declare class Agent {
  constructor(client: Client, opts?: AgentOptions);
  sessionId: string;
  retrievalId: string;
  preTask(prompt: string, options?: CallOptions): Promise<PreTaskResult>;
  postTask(result?: PostTaskInput, options?: CallOptions): Promise<PostTaskResult>;
}
