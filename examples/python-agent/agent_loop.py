"""An agent loop with memory across two sessions, end to end against a real
mnemon server, with a stand-in model function (no model provider needed).

    mnemon serve &                      # http://127.0.0.1:7077
    python3 examples/python-agent/agent_loop.py --url http://127.0.0.1:7077

Session 1: the user tells the agent how their team works; each turn goes
through Agent.pre_task (memory for the prompt) and post_task (the turn is
captured, and feedback sent for the memories used). Session 2, a new
process in real life: the agent is asked about it and answers from what
mnemon packs for the prompt. Exits 0 when the second session remembered.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "sdk", "python"))

import mnemon  # noqa: E402


def words(s: str) -> set:
    return {w for w in re.findall(r"[a-z0-9]+", s.lower()) if len(w) > 2}


def model(prompt: str, memory: str) -> str:
    """The stand-in for an LLM: acknowledges statements, and answers a
    question with the remembered line sharing the most words with it."""
    if not prompt.rstrip().endswith("?"):
        return "Noted."
    best, overlap = "", 0
    for line in memory.splitlines():
        line = line.strip(" -*\t")
        line = re.sub(r"^(\[[^\]]*\]\s*)?(user|agent):\s*", "", line)
        n = len(words(line) & words(prompt))
        if n > overlap and not line.endswith("?"):
            best, overlap = line, n
    return best or "I don't know yet."


def run_session(client: mnemon.Client, session: str, prompts: List[str]) -> List[str]:
    agent = client.agent(agent_id="example-agent", session_id=session, token_budget=400)
    answers = []
    for prompt in prompts:
        pack = agent.pre_task(prompt)
        answer = model(prompt, pack.context)
        result = mnemon.TaskResult(output=answer, succeeded=answer != "I don't know yet.")
        agent.post_task(output=result.output, succeeded=result.succeeded)
        if pack.items:  # rate the memories the answer was given
            agent.send_feedback(pack.retrieval_id, result)
        print("[%s] user: %s\n[%s] agent: %s" % (session, prompt, session, answer))
        answers.append(answer)
    return answers


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default=os.environ.get("MNEMON_URL", "http://127.0.0.1:7077"))
    ap.add_argument("--namespace", default="python-agent-example")
    args = ap.parse_args()
    client = mnemon.Client(args.url, namespace=args.namespace)

    told = [
        "Our staging cluster is called kestrel and it runs in Frankfurt.",
        "Releases are cut on Thursdays after the QA sign-off.",
    ]
    run_session(client, "example-session-1", told)
    # The server indexes a capture in the background: a new session a
    # moment later (here, at once) waits until what was said is recallable.
    deadline = time.monotonic() + 10
    for said in told:
        while time.monotonic() < deadline:
            res = client.retrieve({"query": said, "agent_id": "example-agent"})
            if said in res["context"]:
                break
            time.sleep(0.1)
    answers = run_session(client, "example-session-2", [
        "Which day are releases cut?",
        "Where does the staging cluster kestrel run?",
    ])
    ok = "Thursdays" in answers[0] and "Frankfurt" in answers[1]
    print("remembered across sessions" if ok else "FORGOT something")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
