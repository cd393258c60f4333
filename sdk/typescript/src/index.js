// mnemon's TypeScript/JavaScript client: fetch-based, no runtime
// dependencies. The operation methods come from src/generated.js, which
// scripts/gen.mjs writes from the committed OpenAPI document; this file adds
// what a document cannot say: authentication, retries for idempotent calls,
// typed errors, and the two-call agent wrapper.
import { operations } from "./generated.js";

export { operations };

/** An API answer that is not a success: the problem+json body, typed. */
export class MnemonError extends Error {
  constructor(problem, status, requestId) {
    super(`${problem.title ?? "request failed"}${problem.detail ? `: ${problem.detail}` : ""} (${problem.code ?? status})`);
    this.name = "MnemonError";
    this.status = problem.status ?? status;
    this.code = problem.code ?? "unknown";
    this.title = problem.title ?? "";
    this.detail = problem.detail ?? "";
    this.type = problem.type ?? "about:blank";
    this.requestId = problem.request_id ?? requestId ?? "";
  }
}

// Statuses worth another try of an idempotent call: the server was busy or
// briefly away, and asking again cannot apply anything twice.
const retryable = new Set([429, 502, 503, 504]);

// GET and DELETE are idempotent (forgetting twice changes nothing); a POST
// that stores something is never retried, so nothing is written twice.
const idempotent = (method) => method === "GET" || method === "DELETE" || method === "HEAD";

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

export class Client {
  /**
   * @param {import("./index.js").ClientOptions} opts
   */
  constructor(opts = {}) {
    if (!opts.baseUrl) throw new TypeError("mnemon: baseUrl is required, e.g. http://127.0.0.1:7777");
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.apiKey = opts.apiKey ?? "";
    this.namespace = opts.namespace ?? "";
    this.retries = opts.retries ?? 3;
    this.backoffMs = opts.backoffMs ?? 100;
    this.fetch = opts.fetch ?? globalThis.fetch;
    if (typeof this.fetch !== "function") throw new TypeError("mnemon: no fetch available (Node 18+ has one)");
  }

  /** Calls one operation by its operationId. */
  async call(operationId, args = {}, options = {}) {
    const op = operations[operationId];
    if (!op) throw new TypeError(`mnemon: unknown operation ${operationId}`);
    let path = op.path;
    for (const name of op.pathParams) {
      const v = args[name];
      if (v === undefined || v === null || v === "") throw new TypeError(`mnemon: ${operationId} needs ${name}`);
      path = path.replace(`{${name}}`, encodeURIComponent(String(v)));
    }
    const query = new URLSearchParams();
    for (const name of op.queryParams) {
      if (args[name] !== undefined && args[name] !== null) query.set(name, String(args[name]));
    }
    const url = this.baseUrl + path + (query.size ? `?${query}` : "");
    const headers = { accept: "application/json, application/problem+json, */*" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (this.namespace && !this.apiKey) headers["x-mnemon-namespace"] = this.namespace;
    let body;
    if (op.request === "json") {
      headers["content-type"] = "application/json";
      body = JSON.stringify(args.body ?? {});
    } else if (op.request !== "none") {
      headers["content-type"] = op.request;
      body = args.body ?? "";
    }
    const attempts = idempotent(op.method) ? this.retries + 1 : 1;
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        res = await this.fetch(url, { method: op.method, headers, body, signal: options.signal });
      } catch (err) {
        if (attempt >= attempts || options.signal?.aborted) throw err;
        await sleep(this.#backoff(attempt), options.signal);
        continue;
      }
      if (res.ok) return op.response === "json" ? res.json() : res.text();
      if (attempt < attempts && retryable.has(res.status)) {
        await res.arrayBuffer().catch(() => {});
        await sleep(this.#backoff(attempt, res.headers.get("retry-after")), options.signal);
        continue;
      }
      throw await errorOf(res);
    }
  }

  #backoff(attempt, retryAfter) {
    const seconds = Number(retryAfter);
    if (retryAfter && Number.isFinite(seconds)) return Math.min(seconds * 1000, 30_000);
    const base = this.backoffMs * 2 ** (attempt - 1);
    return base / 2 + Math.random() * (base / 2); // jitter: clients that failed together retry apart
  }
}

for (const id of Object.keys(operations)) {
  Client.prototype[id] = function (argsOrOptions, maybeOptions) {
    const op = operations[id];
    const takesArgs = op.pathParams.length || op.queryParams.length || op.request !== "none";
    return takesArgs ? this.call(id, argsOrOptions, maybeOptions) : this.call(id, {}, argsOrOptions);
  };
}

async function errorOf(res) {
  const requestId = res.headers.get("x-request-id") ?? "";
  const text = await res.text().catch(() => "");
  let problem;
  try {
    problem = JSON.parse(text);
  } catch {
    problem = { title: res.statusText || "request failed", detail: text.slice(0, 200), status: res.status, code: "unknown" };
  }
  return new MnemonError(problem, res.status, requestId);
}

/**
 * Agent wraps one task of an existing agent in two calls: preTask before
 * it runs (the memories that matter, packed for the prompt) and postTask
 * after (what happened, kept as episodes for extraction).
 */
export class Agent {
  constructor(client, opts = {}) {
    if (!(client instanceof Client)) throw new TypeError("mnemon: Agent needs a Client");
    this.client = client;
    this.scope = { agent_id: opts.agentId, user_id: opts.userId, project_id: opts.projectId };
    this.sessionId = opts.sessionId ?? `session-${Date.now().toString(36)}`;
    this.tokenBudget = opts.tokenBudget ?? 1500;
    this.limit = opts.limit ?? 10;
    this.taskType = opts.taskType;
    this.prompt = "";
    this.retrievalId = "";
  }

  /**
   * Retrieves the context for a task's prompt; remember its retrieval id for postTask.
   * A namespace that holds nothing yet gives an empty context and no retrieval id.
   */
  async preTask(prompt, options) {
    const res = await this.client.retrieve({
      body: clean({
        query: prompt, limit: this.limit, token_budget: this.tokenBudget, task_type: this.taskType,
        session_id: this.sessionId, ...this.scope,
      }),
    }, options).catch((err) => {
      // Older servers answered a namespace that holds nothing with 404
      // namespace_not_found; newer ones answer an empty retrieval.
      if (err instanceof MnemonError && err.code === "namespace_not_found") {
        return { retrieval_id: "", context: "", items: [], tokens_used: 0 };
      }
      throw err;
    });
    this.prompt = prompt;
    this.retrievalId = res.retrieval_id;
    return { context: res.context, retrievalId: res.retrieval_id, items: res.items, tokensUsed: res.tokens_used };
  }

  /**
   * Captures the task: the prompt, the agent's output, any extra events of
   * its log, and a task_result event with the outcome.
   */
  async postTask(result = {}, options) {
    const now = () => new Date().toISOString();
    const events = [];
    if (this.prompt) events.push({ kind: "user_message", content: this.prompt, occurred_at: now() });
    for (const e of result.events ?? []) events.push({ occurred_at: now(), ...e });
    if (result.output) events.push({ kind: "agent_message", content: result.output, occurred_at: now() });
    const outcome = result.success === false ? "failure" : "success";
    const metadata = { outcome };
    if (this.taskType) metadata.task_type = this.taskType;
    events.push({ kind: "task_result", content: result.summary ?? `task ${outcome}`, occurred_at: now(), metadata });
    const captured = await this.client.capture({
      wait: result.wait,
      body: clean({ session_id: this.sessionId, ...this.scope, events }),
    }, options);
    let feedback;
    if (result.feedback && this.retrievalId) {
      // Helpful when the task succeeded, harmful (scaled by severity) when
      // it failed; the server reinforces only memories the output used.
      feedback = await this.client.sendFeedback({
        id: this.retrievalId,
        body: clean({
          outcome: result.success === false ? "harmful" : "helpful",
          severity: result.success === false ? result.severity : undefined,
          output: result.output,
          task_succeeded: result.success !== false,
          source: "agent",
        }),
      }, options);
    }
    return { episodeIds: captured.episode_ids, jobId: captured.job_id, retrievalId: this.retrievalId, feedback };
  }
}

function clean(obj) {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined && v !== null && v !== ""));
}
