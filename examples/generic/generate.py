#!/usr/bin/env python3
"""Writes the generic example tree the way its two harnesses would (run from this folder).

cassettes/<provider>/  DataDog test-agent style: <provider>_<path>_<method>_<sha256[:8]>.json,
                       hashing f"{provider}/{path}:{METHOD}:{json.dumps(body, sort_keys=True)}"
vcr/agent.jsonl        a JSONL log whose lines carry request_hash = sha256(JSON.stringify(request))[:16]
"""
import hashlib
import json
import os
import re


def safe(s):
    return re.sub(r"[^A-Za-z0-9.-]", "_", s)


def datadog(provider, path, method, body, response):
    details = f"{provider}/{path}:{method}:{json.dumps(body, sort_keys=True)}"
    digest = hashlib.sha256(details.encode()).hexdigest()[:8]
    name = f"{safe(provider + '/' + path)}_{method.lower()}_{digest}.json"
    doc = {
        "request": {
            "method": method,
            "url": f"https://api.example.com/{path}",
            "headers": {"Content-Type": "application/json", "x-api-key": "[REDACTED]"},
            "body": json.dumps(body),
        },
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": json.dumps(response)}},
    }
    os.makedirs(f"cassettes/{provider}", exist_ok=True)
    with open(f"cassettes/{provider}/{name}", "w") as f:
        f.write(json.dumps(doc, indent=2))


datadog("anthropic", "v1/messages", "POST",
        {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [{"role": "user", "content": "What is 2 + 2?"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "4"}], "stop_reason": "end_turn"})
datadog("anthropic", "v1/messages", "POST",
        {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [{"role": "user", "content": "Name a prime above 10."}]},
        {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "11"}], "stop_reason": "end_turn"})
datadog("mistral", "v1/chat/completions", "POST",
        {"model": "mistral-small", "messages": [{"role": "user", "content": "Say hi in French."}], "temperature": 0.2},
        {"choices": [{"message": {"role": "assistant", "content": "Salut !"}, "finish_reason": "stop"}]})


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


os.makedirs("vcr", exist_ok=True)
with open("vcr/agent.jsonl", "w") as f:
    for i, (question, answer) in enumerate([("List the files.", "a.ts b.ts"), ("Open a.ts.", "export const a = 1;")]):
        request = {"model": "deepseek-v4-flash", "system": "You are a coding agent.", "messages": [{"role": "user", "content": question}]}
        line = {
            "request_hash": hashlib.sha256(compact(request).encode()).hexdigest()[:16],
            "turn": i + 1,
            "request": request,
            "response": {"stop_reason": "end_turn", "text": answer},
        }
        f.write(compact(line) + "\n")
