"""A minimal agent loop against toolgate, standard library only.

The "model" is scripted: each turn returns the assistant message a real Chat
Completions call would return. Swap `scripted_model` for a real API call and
the loop stays the same: list tools, ask the model, post its tool_calls to
toolgate as they are, append the messages toolgate returns, repeat.

    TOOLGATE_URL=http://127.0.0.1:8080 python3 examples/agent_loop.py
"""
import json
import os
import urllib.request

BASE = os.environ.get("TOOLGATE_URL", "http://127.0.0.1:8080")
KEY = os.environ.get("TOOLGATE_KEY")  # only when the gateway has API keys


def call(method, path, body=None):
    headers = {"content-type": "application/json"}
    if KEY:
        headers["authorization"] = f"Bearer {KEY}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


SCRIPT = [
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_w1", "type": "function", "function": {
            "name": "Write", "arguments": json.dumps({"path": "notes/todo.txt", "content": "buy milk\nwrite tests\n"})}},
    ]},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_r1", "type": "function", "function": {"name": "Read", "arguments": json.dumps({"path": "notes/todo.txt"})}},
        {"id": "call_g1", "type": "function", "function": {"name": "Grep", "arguments": json.dumps({"pattern": "tests"})}},
    ]},
    {"role": "assistant", "content": "Your list has 2 items; one of them is about tests."},
]


def scripted_model(messages, tools):
    """Stands in for a Chat Completions call with `tools`; answers turn by turn."""
    turn = sum(1 for m in messages if m["role"] == "assistant")
    return SCRIPT[turn]


def main():
    tools = call("GET", "/tools?format=openai")["tools"]
    print("tools:", ", ".join(t["function"]["name"] for t in tools))
    messages = [{"role": "user", "content": "Make a todo list, then tell me what is on it."}]
    while True:
        reply = scripted_model(messages, tools)
        messages.append(reply)
        if not reply.get("tool_calls"):
            print("assistant:", reply["content"])
            return
        result = call("POST", "/execute", {"session_id": "example-session", **reply})
        for r in result["results"]:
            print(f"  {r['name']} -> {r['status']}" + (f" ({r['error']['code']})" if "error" in r else ""))
        messages.extend(result["messages"])


if __name__ == "__main__":
    main()
