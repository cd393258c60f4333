import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Client, Agent, MnemonError, operations } from "../src/index.js";
import { startServer } from "./support/server.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const client = (namespace = "ts") => new Client({ baseUrl: server.url, namespace });

test("every operation of the document is a method", () => {
  const c = client();
  for (const id of Object.keys(operations)) assert.equal(typeof c[id], "function", id);
});

test("health, readiness and the API document", async () => {
  const c = client();
  assert.equal((await c.getHealthz()).status, "ok");
  assert.equal((await c.getReadyz()).status, "ok");
  const doc = await c.getOpenapiJson();
  assert.equal(doc.openapi, "3.1.0");
});

test("remember, list, show, retrieve, trace, forget", async () => {
  const c = client("ts-facts");
  const rem = await c.remember({ body: { text: "I use pnpm for JavaScript projects." } });
  assert.ok(rem.outcomes.length > 0);
  const memoryId = rem.outcomes[0].memory_id;
  assert.match(memoryId, /^mem_/);

  const list = await c.listMemories({ limit: 10 });
  assert.ok(list.memories.some((v) => v.memory_id === memoryId));

  const view = await c.getMemory({ id: memoryId });
  assert.equal(view.memory.id, memoryId);
  assert.ok(view.versions.length >= 1);

  const got = await c.retrieve({ body: { query: "which package manager do I use?", limit: 5, token_budget: 500 } });
  assert.match(got.retrieval_id, /^ret_/);
  assert.ok(got.items.some((it) => it.memory_id === memoryId), JSON.stringify(got.items));
  assert.match(got.context, /pnpm/);

  const trace = await c.getRetrieval({ id: got.retrieval_id });
  assert.equal(trace.id, got.retrieval_id);
  assert.ok(trace.items.length >= 1);

  const gone = await c.forgetMemory({ id: memoryId });
  assert.equal(gone.memory_id, memoryId);
  const again = await c.forgetMemory({ id: memoryId }); // idempotent
  assert.equal(again.memory_id, memoryId);
  const after = await c.retrieve({ body: { query: "which package manager do I use?", limit: 5, token_budget: 500 } });
  assert.ok(!after.items.some((it) => it.memory_id === memoryId));
});

test("capture with wait, job state, export and import", async () => {
  const c = client("ts-capture");
  const cap = await c.capture({
    wait: true,
    body: {
      session_id: "s1",
      events: [{ kind: "user_message", content: "I live in Lisbon now.", occurred_at: "2026-11-01T10:00:00Z" }],
    },
  });
  assert.equal(cap.episode_ids.length, 1);
  assert.equal(cap.job_state, "succeeded");
  const job = await c.getJob({ id: cap.job_id });
  assert.equal(job.state, "succeeded");

  const dump = await c.exportNamespace();
  assert.ok(dump.split("\n").filter(Boolean).length >= 2);
  const stats = await client("ts-imported").importNamespace({ body: dump });
  assert.ok(stats.episodes >= 1);
  const found = await client("ts-imported").retrieve({ body: { query: "where do I live?", limit: 3, token_budget: 300 } });
  assert.match(found.context, /Lisbon/);
});

test("problems become MnemonError with the stable code", async () => {
  const c = client("ts-errors");
  await c.remember({ body: { text: "The staging database is on port 5433." } });
  await assert.rejects(c.getMemory({ id: "mem_01JZZZZZZZZZZZZZZZZZZZZZZZ" }), (err) => {
    assert.ok(err instanceof MnemonError);
    assert.equal(err.status, 404);
    assert.ok(["not_found", "namespace_not_found"].includes(err.code), err.code);
    assert.ok(err.requestId);
    return true;
  });
  await assert.rejects(c.retrieve({ body: { query: "", limit: -1 } }), (err) => {
    assert.equal(err.status, 400);
    assert.equal(err.code, "invalid_request");
    return true;
  });
  // The test server has no chat model.
  await assert.rejects(c.respond({ body: { query: "which port?" } }), (err) => {
    assert.equal(err.status, 503);
    assert.equal(err.code, "model_not_configured");
    return true;
  });
  assert.throws(() => new Client({}), /baseUrl is required/);
  await assert.rejects(c.getMemory({}), /needs id/);
});

test("an API key fixes the namespace; a bad key is unauthenticated", async () => {
  const c = new Client({ baseUrl: server.url, apiKey: "mk_not_a_key" });
  await assert.rejects(c.listMemories(), (err) => err.status === 401 && err.code === "unauthenticated");
});

test("the first retrieval, before anything is stored, is empty with a hint", async () => {
  const c = client("ts-first-call");
  const res = await c.retrieve({ body: { query: "how do I deploy?", limit: 0, token_budget: 0 } });
  assert.equal(res.retrieval_id, "");
  assert.deepEqual(res.items, []);
  assert.match(res.hint, /holds nothing yet/);
  const pre = await new Agent(c).preTask("How do I deploy the service?");
  assert.equal(pre.retrievalId, "");
  assert.equal(pre.context, "");
});

test("the agent wrapper: preTask then postTask", async () => {
  const c = client("ts-agent");
  await c.remember({ body: { text: "The deploy script is scripts/deploy.sh and needs VPN access." } });
  const agent = new Agent(c, { sessionId: "task-1", taskType: "deploy", tokenBudget: 400 });
  const pre = await agent.preTask("How do I deploy the service?");
  assert.match(pre.retrievalId, /^ret_/);
  assert.match(pre.context, /deploy\.sh/);
  const post = await agent.postTask({
    output: "Connected to the VPN and ran scripts/deploy.sh.",
    events: [{ kind: "tool_call", content: "bash scripts/deploy.sh" }],
    wait: true,
    feedback: true,
  });
  assert.equal(post.feedback.retrieval_id, pre.retrievalId);
  assert.ok(post.feedback.applied.length >= 1, JSON.stringify(post.feedback));
  const explained = await c.explainMemory({ id: pre.items[0].memory_id });
  assert.ok(JSON.stringify(explained).includes(pre.retrievalId), "explain shows the feedback's retrieval");
  assert.equal(post.episodeIds.length, 4); // prompt, tool call, output, task result
  assert.equal(post.retrievalId, pre.retrievalId);
  const trace = await c.getRetrieval({ id: pre.retrievalId });
  assert.equal(trace.scope.session_id, "task-1");
});

// Retries are about what the server cannot be made to do on demand (answer
// 503), so this one test talks to a stand-in on loopback.
test("idempotent calls retry on 503; a POST never does", async () => {
  let gets = 0;
  let posts = 0;
  const flaky = createServer((req, res) => {
    if (req.method === "GET") gets++;
    else posts++;
    const ok = req.method === "GET" && gets >= 3;
    res.writeHead(ok ? 200 : 503, { "content-type": ok ? "application/json" : "application/problem+json" });
    res.end(JSON.stringify(ok ? { status: "ok" } : { type: "about:blank", title: "unavailable", status: 503, code: "unavailable" }));
  });
  await new Promise((r) => flaky.listen(0, "127.0.0.1", r));
  try {
    const c = new Client({ baseUrl: `http://127.0.0.1:${flaky.address().port}`, backoffMs: 1 });
    assert.equal((await c.getHealthz()).status, "ok");
    assert.equal(gets, 3);
    await assert.rejects(c.remember({ body: { text: "x y z" } }), (err) => err.code === "unavailable");
    assert.equal(posts, 1);
  } finally {
    flaky.close();
  }
});
