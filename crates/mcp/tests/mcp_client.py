#!/usr/bin/env python3
"""The real `schcp-mcp` binary driven by an MCP client nobody here wrote: the
`mcp` package from PyPI (`stdio_client` + `ClientSession`).

It plays the README's "new user": the example host (Maple Street Auto), the key
app (`schcp-keyapp serve`), the MCP server started by the client over stdio,
and the person answering with the `schcp-keyapp` CLI. Checks:

- pair, approved with the CLI after comparing the code;
- request_closed_mandate over the host's offer: the consent text the model
  gets is the one the CLI shows the person; approved with the CLI;
  wait_for_answer returns a closed mandate that jwcrypto verifies against
  /v1/principal's key (and whose cnf.jkt is the MCP agent's key);
- a decline comes back as declined;
- a hostile (tampered) offer comes back as a tool error naming the reason;
- cancelling wait_for_answer leaves the request pending and the server alive;
- the key app stopped (SIGTERM) removes agent-api.json, and a stranger then
  listening on its port is named an impostor by keyapp_status (never "running
  and paired"), and list_mandates refuses to talk to it.

Run it under scripts/with-keyring after the workspace is built
(`cargo test --workspace` builds every binary and example):

    scripts/with-keyring python3 crates/mcp/tests/mcp_client.py [--bin-dir DIR]

Prints "N passed, 0 failed" at the end; exits non-zero on the first failure.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import anyio
from jwcrypto import jwk, jws
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

DISCOVERY = "https://maplestreetauto.example/.well-known/scheduling.json"
PASSED = []


def check(name, cond, detail=""):
    if not cond:
        print(f"FAILED: {name}: {detail}", file=sys.stderr)
        raise SystemExit(1)
    PASSED.append(name)
    print(f"ok: {name}")


def b64url_decode(s):
    import base64

    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


class World:
    """The example host and the key app, as a person would run them."""

    def __init__(self, bin_dir, scratch):
        self.bin_dir = bin_dir
        self.scratch = scratch
        self.config = os.path.join(scratch, "keyapp.toml")
        host_toml = os.path.join(scratch, "host.toml")
        self.host = subprocess.Popen(
            [os.path.join(bin_dir, "examples", "host"), "--listen", "127.0.0.1:0", "--config-out", host_toml,
             "--ca-out", os.path.join(scratch, "ca.pem"), "--every", "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.first_offer = self.host.stdout.readline().strip()
        with open(host_toml) as f:
            discovery = f.read()
        data = os.path.join(scratch, "data")
        with open(self.config, "w") as f:
            f.write(f'data_dir = "{data}"\nlocale = "en"\n[agent_api]\nlisten = "127.0.0.1:0"\n'
                    f'[status_api]\nlisten = "127.0.0.1:0"\npublic_base = "https://keyapp.example"\n\n{discovery}')
        self.keyapp_log = open(os.path.join(scratch, "keyapp.log"), "w")
        self.keyapp = subprocess.Popen([self.cli(), "--config", self.config, "serve"],
                                       stdin=subprocess.DEVNULL, stdout=self.keyapp_log, stderr=self.keyapp_log)
        self.agent_api = os.path.join(data, "run", "agent-api.json")
        deadline = time.time() + 30
        while not os.path.exists(self.agent_api):
            if self.keyapp.poll() is not None or time.time() > deadline:
                with open(os.path.join(scratch, "keyapp.log")) as f:
                    raise SystemExit(f"the key app did not start:\n{f.read()}")
            time.sleep(0.1)

    def cli(self):
        return os.path.join(self.bin_dir, "schcp-keyapp")

    def offer(self):
        """A fresh offer from the host."""
        self.host.stdin.write("offer\n")
        self.host.stdin.flush()
        return self.host.stdout.readline().strip()

    def person(self, *args, answer=None):
        out = subprocess.run([self.cli(), "--config", self.config, *args], input=answer, capture_output=True,
                             text=True, timeout=30)
        if out.returncode != 0:
            raise SystemExit(f"schcp-keyapp {' '.join(args)} failed: {out.stderr}")
        return out.stdout

    def pending(self):
        return [line.split("\t")[0] for line in self.person("pending").splitlines() if "\t" in line]

    def close(self):
        for p in (self.keyapp, self.host):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.keyapp_log.close()


def structured(result):
    return result.structured_content or {}


def first_text(result):
    return result.content[0].text if result.content else ""


async def run(world, mcp_bin):
    params = StdioServerParameters(
        command=mcp_bin,
        args=["--agent-api", world.agent_api, "--profile-dir", os.path.join(world.scratch, "agent"),
              "--agent-name", "Python MCP client"],
        env=dict(os.environ),
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            check("tools listed", {"keyapp_status", "pair", "request_closed_mandate", "wait_for_answer",
                                   "list_mandates", "withdraw_request"} <= set(tools), sorted(tools))
            check("wait_for_answer is read-only", tools["wait_for_answer"].annotations.read_only_hint is True)
            check("no tool is destructive", all(t.annotations.destructive_hint is False for t in tools.values()))

            # Pairing, approved by the person with the CLI after comparing the code.
            status = structured(await session.call_tool("keyapp_status", {}))
            check("status: running, not paired", status.get("running") is True and status.get("paired") == "not_paired",
                  status)
            pairing = structured(await session.call_tool("pair", {}))
            fingerprint = pairing["fingerprint"]
            shown = world.person("approve", pairing["pairing_id"], answer="y\n")
            check("the CLI shows the code the model relays", fingerprint in shown, shown)
            status = structured(await session.call_tool("keyapp_status", {}))
            check("status: paired", status.get("paired") == "paired", status)

            # A closed mandate over the host's offer, approved with the CLI.
            offer = world.first_offer
            r = await session.call_tool("request_closed_mandate", {"offer": offer, "discovery": DISCOVERY})
            check("request_closed_mandate succeeds", r.is_error is False, r)
            req = structured(r)["request"]
            rid = req["request_id"]
            check("consent text relayed with the instruction",
                  req["consent_text"] in first_text(r) and "exactly as written" in first_text(r), first_text(r))
            shown = world.person("approve", rid, answer="y\n")
            check("the person is shown the consent text the model got", req["consent_text"] in shown, shown)
            done = await session.call_tool("wait_for_answer", {"request_id": rid})
            answer = structured(done)
            check("wait_for_answer: approved", done.is_error is False and answer.get("status") == "approved", answer)
            mandate = answer["credential"]["mandate"]

            # jwcrypto verifies it against the principal's key from /v1/principal.
            me = structured(await session.call_tool("keyapp_status", {}))
            key_json = me["principal_jwk"]  # from the key app's /v1/principal
            check("/v1/principal's key is the one the CLI shows", key_json == principal_jwk(world), key_json)
            token = jws.JWS()
            token.deserialize(mandate)
            token.verify(jwk.JWK(**key_json), alg="EdDSA")
            claims = json.loads(token.payload)
            check("jwcrypto verifies the mandate; iss is the principal", claims["iss"] == me["principal"], claims)
            check("cnf.jkt is the MCP agent's key", claims["cnf"]["jkt"] == me["agent_key_thumbprint"], claims)
            listed = structured(await session.call_tool("list_mandates", {}))
            check("list_mandates names it", listed["mandates"][0]["jti"] == claims["jti"], listed)

            # A decline comes back as declined.
            r = await session.call_tool("request_closed_mandate", {"offer": world.offer(), "discovery": DISCOVERY})
            declined_id = structured(r)["request"]["request_id"]
            world.person("decline", declined_id)
            r = await session.call_tool("wait_for_answer", {"request_id": declined_id})
            check("a decline is a tool error saying declined",
                  r.is_error is True and structured(r).get("status") == "declined" and "declined" in first_text(r), r)

            # A hostile offer: signature bytes changed after signing.
            head, payload, sig = world.offer().split(".")
            tampered = ".".join([head, payload, ("A" if sig[0] != "A" else "B") + sig[1:]])
            r = await session.call_tool("request_closed_mandate", {"offer": tampered, "discovery": DISCOVERY})
            check("a hostile offer is a tool error naming the reason",
                  r.is_error is True and "bad_signature" in first_text(r), first_text(r))
            check("nothing hostile reached the person", world.pending() == [], world.pending())

            # Cancelling wait_for_answer leaves the request pending and the server alive.
            r = await session.call_tool("request_closed_mandate", {"offer": world.offer(), "discovery": DISCOVERY})
            pending_id = structured(r)["request"]["request_id"]
            progress = []

            async def on_progress(p, total, message):
                progress.append((p, total, message))

            with anyio.move_on_after(7) as scope:
                await session.call_tool("wait_for_answer", {"request_id": pending_id}, progress_callback=on_progress)
            check("wait_for_answer was cancelled by the client", scope.cancelled_caught)
            check("progress was reported while waiting", len(progress) >= 1, progress)
            check("the request is still pending after the cancel", world.pending() == [pending_id], world.pending())
            status = structured(await session.call_tool("keyapp_status", {}))
            check("the server is alive after the cancel", status.get("paired") == "paired", status)
            r = await session.call_tool("withdraw_request", {"request_id": pending_id})
            check("withdraw_request withdraws it", structured(r).get("status") == "withdrawn", r)

            # The key app stops cleanly; a stranger takes its port.
            with open(world.agent_api) as f:
                url = json.load(f)["url"]
            world.keyapp.terminate()
            world.keyapp.wait(timeout=30)
            check("a clean stop removes agent-api.json", not os.path.exists(world.agent_api))
            stranger = Stranger(int(url.rsplit(":", 1)[1]))
            try:
                with open(world.agent_api, "w") as f:
                    json.dump({"url": url, "schcp": "0.4"}, f)
                r = await session.call_tool("keyapp_status", {})
                check("status names the stranger an impostor",
                      r.is_error is True and structured(r).get("impostor") is True
                      and "is not your key app" in first_text(r) and structured(r).get("paired") != "paired", r)
                r = await session.call_tool("list_mandates", {})
                check("list_mandates refuses the impostor", r.is_error is True and "is not your key app" in first_text(r),
                      first_text(r))
            finally:
                stranger.close()


class Stranger:
    """A program that is not the key app, answering on its port like a web server would."""

    def __init__(self, port):
        import http.server
        import threading

        class Answer(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = b'{"principal": "urn:schcp:principal:jwk-thumbprint:x", "paired": true}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        deadline = time.time() + 10
        while True:
            try:
                self.server = http.server.HTTPServer(("127.0.0.1", port), Answer)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def principal_jwk(world):
    """The principal's key as the person's CLI shows it (`schcp-keyapp principal`)."""
    out = world.person("principal")
    start = out.find("{")
    check("schcp-keyapp principal prints the JWK", start >= 0, out)
    return json.loads(out[start:out.rfind("}") + 1])


def main():
    ap = argparse.ArgumentParser()
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "target"))
    ap.add_argument("--bin-dir", default=os.path.join(target, "debug"))
    a = ap.parse_args()
    bin_dir = os.path.abspath(a.bin_dir)
    for b in ("schcp-mcp", "schcp-keyapp", os.path.join("examples", "host")):
        if not os.path.exists(os.path.join(bin_dir, b)):
            raise SystemExit(f"{bin_dir}/{b} is missing: build the workspace first (cargo test --workspace --no-run)")
    scratch = tempfile.mkdtemp(prefix="schcp-mcp-py.")
    world = World(bin_dir, scratch)
    try:
        anyio.run(run, world, os.path.join(bin_dir, "schcp-mcp"))
    finally:
        world.close()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{len(PASSED)} passed, 0 failed")


if __name__ == "__main__":
    main()
