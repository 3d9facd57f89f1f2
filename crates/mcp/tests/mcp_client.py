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
- a hostile (tampered) offer comes back as a tool error, its reason in the
  structured content and not in the sentence;
- the whole booking path at the example host: find_host Maple Street Auto,
  availability next week, a standing permission to hold (approved with the
  CLI), hold, book (the person approves the exact offer; progress while it
  waits), the management mandate (approved; the receipt is then in the key
  app's records), reschedule (a change offer the person approves; the text they
  read says the old time and the new one), booking, cancel; list_mandates in
  words;
- a booking limit shared across hosts, issued as an SD-JWT VC (each call
  presents this host's part with a fresh Key Binding JWT): book needs no new
  yes, the host claims the unit (list_mandates: 0 left) and cancel gives it
  back (1 left);
- invitations (SchCP §5.10): answer_invitation asks to read that one booking
  (booking_read), then asks the person; one accepted (the host confirms it),
  one declined (nothing is signed for the no: the tool says so, and the booking
  stays tentative at the host until its default);
- the refusals on that path, each one sentence saying what to do next: a hold
  without permission, a time the host refuses, an expired offer, a decline,
  the cooldown after two declines;
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
             "--ca-out", os.path.join(scratch, "ca.pem"), "--trust-out", os.path.join(scratch, "trust.toml"),
             "--every", "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.first_offer = self.host.stdout.readline().strip()
        with open(host_toml) as f:
            discovery = f.read()
        data = os.path.join(scratch, "data")
        # The status API where the example host claims and gives back shared-limit
        # units (SchCP §3.3): on this machine, so hosts_on_this_machine.
        self.status_port = free_port()
        with open(self.config, "w") as f:
            f.write(f'data_dir = "{data}"\nlocale = "en"\n[agent_api]\nlisten = "127.0.0.1:0"\n'
                    f'[status_api]\nlisten = "127.0.0.1:{self.status_port}"\n'
                    f'public_base = "http://127.0.0.1:{self.status_port}"\nhosts_on_this_machine = true\n\n{discovery}')
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

    def command(self, line):
        """One command to the example host, and the one line it answers."""
        self.host.stdin.write(line + "\n")
        self.host.stdin.flush()
        return self.host.stdout.readline().strip()

    def expire(self):
        """Every hold at the host lapses now."""
        self.host.stdin.write("expire\n")
        self.host.stdin.flush()
        time.sleep(0.3)

    def receipt(self, booking_id):
        """The host-signed receipt the key app keeps for a booking (its records; no CLI lists them)."""
        import glob
        import sqlite3

        for db in glob.glob(os.path.join(self.scratch, "data", "**", "*.db"), recursive=True):
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                row = con.execute("SELECT compact FROM receipts WHERE booking_id = ?", (booking_id,)).fetchone()
            except sqlite3.Error:
                row = None
            con.close()
            if row:
                return row[0]
        return None

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


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def structured(result):
    return result.structured_content or {}


def first_text(result):
    return result.content[0].text if result.content else ""


async def run(world, mcp_bin):
    params = StdioServerParameters(
        command=mcp_bin,
        args=["--agent-api", world.agent_api, "--profile-dir", os.path.join(world.scratch, "agent"),
              "--agent-name", "Python MCP client", "--host-trust", os.path.join(world.scratch, "trust.toml")],
        env=dict(os.environ),
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            check("tools listed", {"keyapp_status", "pair", "request_closed_mandate", "wait_for_answer",
                                   "list_mandates", "withdraw_request"} <= set(tools), sorted(tools))
            check("wait_for_answer is read-only", tools["wait_for_answer"].annotations.read_only_hint is True)
            check("only cancel is destructive", all(t.annotations.destructive_hint is (n == "cancel") for n, t in tools.items()))

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
            check("a hostile offer is a tool error with its reason beside the sentence",
                  r.is_error is True and structured(r)["error"]["reason"] == "bad_signature"
                  and "bad_signature" not in first_text(r) and "nothing was shown" in first_text(r), first_text(r))
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

            await booking_path(session, world)

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


def plain_sentence(name, text, one=True):
    """One sentence for the model: no section sign, no Unix time, no CODE_WORDS."""
    import re
    check(name + ": plain words", "§" not in text and not re.search(r"\b\d{9,}\b", text)
          and not re.search(r"\b[A-Z]+_[A-Z_]+\b", text), text)
    if one:
        check(name + ": one sentence", text.endswith(".") and ". " not in text.rstrip(".") and "\n" not in text, text)


async def booking_path(session, world):
    """The whole path at the example host, then its refusals."""
    import datetime

    found = await session.call_tool("find_host", {"address": "maplestreetauto.example"})
    check("find_host finds Maple Street Auto", found.is_error is False
          and structured(found)["name"] == "Maple Street Auto" and "oil-change" in first_text(found), found)
    business = structured(found)["business"]
    today = datetime.date.today()
    monday = today + datetime.timedelta(days=7 - today.weekday())
    week = {"business": business, "service": "oil-change", "from": monday.isoformat(),
            "to": (monday + datetime.timedelta(days=4)).isoformat()}
    free = await session.call_tool("availability", week)
    slots = structured(free).get("slots", [])
    check("availability next week lists times in words", free.is_error is False and len(slots) >= 6
          and slots[0]["when"] in first_text(free) and "Toronto" in slots[0]["when"], first_text(free))

    # No permission to hold yet: the tool says which to ask for.
    r = await session.call_tool("hold", {"business": business, "service": "oil-change", "start": slots[0]["start"]})
    check("hold without permission says to ask for it", r.is_error is True and "request_mandate" in first_text(r),
          first_text(r))
    plain_sentence("hold without permission", first_text(r))
    r = await session.call_tool("request_mandate", {"hosts": [{"id": business, "discovery": DISCOVERY}],
                                                    "scope": ["hold"], "lifetime": "P1D"})
    root_id = structured(r)["request"]["request_id"]
    world.person("approve", root_id, answer="y\n")
    r = await session.call_tool("wait_for_answer", {"request_id": root_id})
    check("the person gave a standing permission to hold", structured(r).get("status") == "approved", r)

    held = await session.call_tool("hold", {"business": business, "service": "oil-change", "start": slots[0]["start"]})
    hold_id = structured(held).get("hold_id")
    check("hold holds the chosen time", held.is_error is False and hold_id and slots[0]["when"] in first_text(held),
          first_text(held))

    # book: the person is asked for these exact terms; the tool waits with progress.
    progress = []

    async def on_progress(p, total, message):
        progress.append((p, total, message))

    r = await session.call_tool("book", {"hold_id": hold_id, "wait_seconds": 2}, progress_callback=on_progress)
    waiting = structured(r)
    check("book waits for the person, with progress", waiting.get("status") == "waiting_for_the_person"
          and len(progress) >= 1, (waiting, progress))
    check("book relays the consent text verbatim", waiting["consent_text"] in first_text(r)
          and "exactly as written" in first_text(r), first_text(r))
    shown = world.person("approve", waiting["request_id"], answer="y\n")
    check("the person is shown what the model relays", waiting["consent_text"] in shown, shown)
    booked = await session.call_tool("book", {"hold_id": hold_id})
    b = structured(booked)
    check("book books it with the person's approval of the offer", booked.is_error is False
          and b.get("status") == "confirmed" and b["credential_used"]["standing_permission"] is False
          and "exact terms" in first_text(booked), first_text(booked))
    booking_id = b["booking_id"]

    # The management mandate: the person allows managing the booking; its receipt is then in the records.
    management = b["management"]
    check("book asks for the management mandate", management.get("status") == "pending"
          and management["consent_text"] in first_text(booked), management)
    world.person("approve", management["request_id"], answer="y\n")
    check("the receipt is in the key app's records", world.receipt(booking_id) == b["receipt"], world.receipt(booking_id))

    # Reschedule: a change offer the person approves, from the old time to the new one.
    before = world.pending()
    r = await session.call_tool("reschedule", {"booking_id": booking_id, "new_start": slots[1]["start"],
                                               "wait_seconds": 2})
    move = structured(r)
    check("reschedule makes a change request and waits for the person",
          move.get("status") == "waiting_for_the_person" and move["request_id"] not in before
          and move["request_id"] in world.pending(), move)
    check("reschedule says from and to", move.get("from") == slots[0]["when"] and move.get("to") == slots[1]["when"],
          move)
    print("--- the move's consent text:\n" + move["consent_text"] + "\n---")
    check("the person sees the move from the old time to the new one", shows_move(move["consent_text"], slots[0], slots[1]),
          move["consent_text"])
    shown = world.person("approve", move["request_id"], answer="y\n")
    check("the person is shown the change the model relays", move["consent_text"] in shown, shown)
    moved = await session.call_tool("reschedule", {"booking_id": booking_id, "new_start": slots[1]["start"]})
    check("reschedule moves the booking", moved.is_error is False and structured(moved)["start"] == slots[1]["start"]
          and slots[1]["when"] in first_text(moved) and slots[0]["when"] in first_text(moved), first_text(moved))
    renewal = structured(moved).get("management", {})
    if renewal.get("status") == "pending":
        world.person("approve", renewal["request_id"], answer="y\n")
    now = await session.call_tool("booking", {"booking_id": booking_id})
    check("booking reads it as the business has it", structured(now).get("start") == slots[1]["start"]
          and structured(now).get("sequence") == 1, now)

    listed = await session.call_tool("list_mandates", {})
    text = first_text(listed)
    check("list_mandates says what each allows and until when", "standing permission to hold times" in text
          and "permission to cancel or move booking" in text and "valid until 20" in text, text)
    plain_sentence("list_mandates", text, one=False)

    cancelled = await session.call_tool("cancel", {"booking_id": booking_id, "reason": "plans changed"})
    check("cancel cancels it", cancelled.is_error is False and structured(cancelled)["status"] == "cancelled",
          first_text(cancelled))

    await shared_limit_path(session, world, business, slots)
    await invitations(session, world, business)

    # A time the host refuses: not one it has free.
    start = datetime.datetime.fromisoformat(slots[2]["start"]) + datetime.timedelta(minutes=30)
    r = await session.call_tool("hold", {"business": business, "service": "oil-change", "start": start.isoformat()})
    check("a host refusal says what to do next", r.is_error is True and "availability" in first_text(r)
          and structured(r)["error"]["reason"] == "slot_taken", first_text(r))
    plain_sentence("host refusal", first_text(r))

    # An expired offer.
    h = structured(await session.call_tool("hold", {"business": business, "service": "oil-change", "start": slots[2]["start"]}))["hold_id"]
    r = await session.call_tool("book", {"hold_id": h, "wait_seconds": 1})
    world.person("approve", structured(r)["request_id"], answer="y\n")
    world.expire()
    r = await session.call_tool("book", {"hold_id": h})
    check("an expired offer says to ask for a new time", r.is_error is True
          and first_text(r).startswith("The offer has expired") and "availability" in first_text(r), first_text(r))
    plain_sentence("expired offer", first_text(r))

    # A decline, then another: the cooldown.
    for n, slot in enumerate(slots[3:5]):
        h = structured(await session.call_tool("hold", {"business": business, "service": "oil-change", "start": slot["start"]}))["hold_id"]
        r = await session.call_tool("book", {"hold_id": h, "wait_seconds": 1})
        world.person("decline", structured(r)["request_id"])
        r = await session.call_tool("book", {"hold_id": h})
        check(f"decline {n + 1} says the person said no and not to ask again", r.is_error is True
              and "declined" in first_text(r) and "do not ask again" in first_text(r), first_text(r))
        plain_sentence("decline", first_text(r))
    h = structured(await session.call_tool("hold", {"business": business, "service": "oil-change", "start": slots[5]["start"]}))["hold_id"]
    r = await session.call_tool("book", {"hold_id": h, "wait_seconds": 1})
    check("the cooldown says not to ask again before then", r.is_error is True
          and "do not ask again" in first_text(r) and structured(r)["error"]["reason"] == "cooldown", first_text(r))
    plain_sentence("cooldown", first_text(r))

    # Arguments that do not fit a tool: one sentence naming the argument.
    r = await session.call_tool("request_mandate", {"scope": ["hold"]})
    check("a missing argument is named in words", r.is_error is True and '"hosts"' in first_text(r)
          and "failed to deserialize" not in first_text(r), first_text(r))


def shows_move(text, old, new):
    """The key app's text names the old time and the new one (their days and clock times)."""
    import datetime
    import zoneinfo

    def words(slot):
        t = datetime.datetime.fromisoformat(slot["start"]).astimezone(zoneinfo.ZoneInfo("America/Toronto"))
        return t.strftime("%-d %B %Y"), t.strftime("%-I:%M")

    (old_day, old_clock), (new_day, new_clock) = words(old), words(new)
    return (old_day in text and new_day in text and old_clock in text and new_clock in text
            and "from" in text.lower() and " to " in text)


async def remaining(session, jti):
    listed = structured(await session.call_tool("list_mandates", {}))
    return next((m.get("remaining") for m in listed["mandates"] if m["jti"] == jti), "not listed")


async def shared_limit_path(session, world, business, slots):
    """One booking in all, shared across hosts (SchCP §3.3), issued as an SD-JWT VC (§3.4): the example
    host claims the unit at confirm and gives it back at cancel; the key app's count says so."""
    r = await session.call_tool("request_mandate", {
        "hosts": [{"id": business, "discovery": DISCOVERY}], "scope": ["hold", "book", "cancel"],
        # Its window is one slot, so it covers nothing the refusals below try.
        "constraints": {"max_bookings": 1, "shared_limit": True,
                        "window": {"not_before": slots[6]["start"], "not_after": slots[6]["end"]}},
        "lifetime": "P1D", "format": "dc+sd-jwt"})
    check("a shared-limit SD-JWT mandate is asked for", r.is_error is False, first_text(r))
    rid = structured(r)["request"]["request_id"]
    world.person("approve", rid, answer="y\n")
    r = await session.call_tool("wait_for_answer", {"request_id": rid})
    credential = structured(r).get("credential", {})
    jti = credential.get("jti")
    presentation = credential.get("presentations", {}).get(business, "")
    check("the key app issues it as an SD-JWT VC with this host's presentation",
          "~" in presentation and presentation.endswith("~") and "~" not in credential.get("mandate", "~"), credential)
    check("one booking left before booking", await remaining(session, jti) == 1, await remaining(session, jti))

    held = await session.call_tool("hold", {"business": business, "service": "oil-change", "start": slots[6]["start"]})
    check("hold under the SD-JWT mandate", held.is_error is False and structured(held)["credential_used"] == jti,
          first_text(held))
    booked = await session.call_tool("book", {"hold_id": structured(held)["hold_id"], "wait_seconds": 1})
    b = structured(booked)
    check("book under the shared limit needs no new yes and says which credential",
          booked.is_error is False and b.get("status") == "confirmed" and b["credential_used"]["jti"] == jti
          and b["credential_used"]["standing_permission"] is True and jti in first_text(booked), first_text(booked))
    check("the host claimed the unit: none left", await remaining(session, jti) == 0, await remaining(session, jti))

    cancelled = await session.call_tool("cancel", {"booking_id": b["booking_id"], "wait_seconds": 1})
    check("cancel cancels the shared-limit booking", cancelled.is_error is False
          and structured(cancelled).get("status") == "cancelled", first_text(cancelled))
    check("cancel gave the unit back", await remaining(session, jti) == 1, await remaining(session, jti))
    listed = first_text(await session.call_tool("list_mandates", {}))
    check("list_mandates says the booking left, in words", "1 booking(s) left of its shared limit" in listed, listed)


async def invitations(session, world, business):
    """Bookings someone else made that name the person (SchCP §5.10): one they accept, one they decline."""
    me = structured(await session.call_tool("keyapp_status", {}))["principal"]
    for accept in (True, False):
        booking_id = world.command(f"invite {me}")
        check("the host has a booking naming the person", booking_id.startswith("b_"), booking_id)
        args = {"business": business, "booking_id": booking_id, "wait_seconds": 1}
        r = await session.call_tool("answer_invitation", args)
        read = structured(r)
        check("answer_invitation first asks to read that booking alone", read.get("status") == "waiting_for_the_person"
              and booking_id in read.get("consent_text", "") and read["consent_text"] in first_text(r), first_text(r))
        world.person("approve", read["request_id"], answer="y\n")
        r = await session.call_tool("answer_invitation", args)
        ask = structured(r)
        check("then asks the person about the invitation, shown in full",
              ask.get("status") == "waiting_for_the_person" and ask["request_id"] != read["request_id"]
              and "invitation" in ask.get("consent_text", "") and ask["consent_text"] in first_text(r), first_text(r))
        world.person("approve" if accept else "decline", ask["request_id"], answer="y\n")
        r = await session.call_tool("answer_invitation", args)
        done = structured(r)
        if accept:
            check("an accepted invitation: the business has the yes", r.is_error is False
                  and done.get("accepted") is True and done.get("status") == "confirmed", first_text(r))
            check("the host records the yes", world.command(f"status {booking_id}") == "confirmed")
        else:
            check("a declined invitation: nothing is signed for the no, and the tool says so", r.is_error is True
                  and "declined" in first_text(r) and "follows its default" in first_text(r), first_text(r))
            check("the host still has it waiting for its default", world.command(f"status {booking_id}") == "tentative")


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
