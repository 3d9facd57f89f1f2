#!/usr/bin/env python3
"""The desktop key app end to end, in the real webview.

Run by scripts/desktop-e2e under xvfb-run and scripts/with-keyring (a private
D-Bus session with an unlocked gnome-keyring, HOME in a scratch folder). It
starts the example host, the built app through tauri-driver (WebDriver, which
drives Debian's WebKitWebDriver), and the example agent, and checks, as the
person would see it:

- the pairing code on screen equals the agent's;
- a closed mandate's consent text on screen equals the service's consent_text
  byte for byte; Approve; the agent's mandate verifies (jwcrypto, the
  principal's public JWK);
- a booking made end to end: the host confirms the approved offer and signs
  its receipt, the agent hands the receipt in (a management mandate), the
  person approves in the window, and My bookings lists the booking with the
  host's name, its time and its price, and no raw id outside Details;
- a decline ends the agent's request as declined;
- revoking from Credentials revokes it in the service, and at its status URL, at once;
- Approve reached by keyboard alone (Tab, then Enter) issues the credential,
  the OS's confirmation of the person still in front of it;
- searching History and Credentials (words, host, assistant, answer or state)
  narrows the list to the matching rows, and a search nothing matches says so;
- the export form writes JSON that parses, follows its schema and holds the
  records shown, and a printable page naming the host;
- the French UI and French consent text;
- an accessibility audit (axe-core) of the consent view, every screen, the
  search form (a search nothing matches), the export form and each first-run step, each also
  checked to reflow at 200 % zoom with no sideways scrolling;
- screenshots in docs/screenshots/: the consent window, Credentials, History
  (searched), the export, My bookings, Settings, the first run's steps, the
  recovery kit and the restore;
- the first run asks before any key exists (a new key, or a restore: a
  mistyped phrase is refused in words and writes nothing);
- the recovery kit shown in Settings after the OS confirmed the person, two of
  its words typed back, and "Back up now" writing an age file;
- where no keychain answers, the file keystore's passphrase set and then
  unlocked in the window (a mismatch and a wrong passphrase said and retried);
- idle in the tray (a stand-in tray host, tray_host.py): once the last window
  closes no WebKit web process is left, and a new pairing opens the consent window.
"""

import base64
import datetime
import zoneinfo
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import jsonschema
from jwcrypto import jwk, jws
from selenium import webdriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.options import ArgOptions

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TARGET = os.environ.get("CARGO_TARGET_DIR", "/var/tmp/schcp-target")
# E2E_PROFILE: the cargo profile built (scripts/desktop-e2e); E2E_APP: another
# build of the app (scripts/bench-desktop runs the Tauri CLI's release build).
PROFILE = os.environ.get("E2E_PROFILE", "debug")
APP = os.environ.get("E2E_APP") or os.path.join(TARGET, PROFILE, "schcp-keyapp-desktop")
CLI = os.path.join(TARGET, PROFILE, "schcp-keyapp")
HOST = os.path.join(TARGET, PROFILE, "examples", "host")
AGENT = os.path.join(TARGET, PROFILE, "examples", "agent")
SHOTS = os.path.join(ROOT, "docs", "screenshots")
DISCOVERY = "https://maplestreetauto.example/.well-known/scheduling.json"
# E2E_DRIVER_PORT: tauri-driver's port (scripts/bench-desktop takes another, so both can run).
DRIVER = f"http://127.0.0.1:{os.environ.get('E2E_DRIVER_PORT', '4444')}"
AXE = os.path.join(ROOT, "ui", "node_modules", "axe-core", "axe.min.js")
EXPORT_SCHEMA = os.path.join(ROOT, "schemas", "records-export.schema.json")


def message(msg_id, lang="en"):
    """A one-line Fluent message as the window says it (locales/LANG/*.ftl), so
    the scenarios find a form's fields by the words a person reads beside them."""
    folder = os.path.join(ROOT, "locales", lang)
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            for line in f:
                key, sep, value = line.partition(" = ")
                if sep and key == msg_id:
                    return value.strip()
    raise KeyError(msg_id)


def shot_to(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, name))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, timeout=30.0, every=0.2):
    end = time.time() + timeout
    last = None
    while time.time() < end:
        try:
            v = check()
            if v:
                return v
        except Exception as e:  # the element or file may not exist yet
            last = e
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what} (last error: {last})")


class Env:
    def __init__(self, scratch, lang, app=None):
        self.scratch = scratch
        self.lang = lang
        self.status_port = free_port()
        self.agent_port = free_port()
        self.host = subprocess.Popen(
            [HOST, "--listen", "127.0.0.1:0", "--ca-out", f"{scratch}/ca.pem", "--config-out",
             f"{scratch}/host.toml", "--offer-out", f"{scratch}/offer.jws", "--every", "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(f"{scratch}/host.err", "w"), text=True)
        # What the host prints (its offers and receipts, one JWS a line), read
        # as it comes so the pipe never fills.
        self.host_lines = queue.Queue()
        threading.Thread(target=lambda: [self.host_lines.put(l.strip()) for l in self.host.stdout],
                         daemon=True).start()
        wait_for("the host's offer", lambda: os.path.getsize(f"{scratch}/offer.jws") > 0)
        discovery = open(f"{scratch}/host.toml").read()
        self.config = f"{scratch}/keyapp.toml"
        with open(self.config, "w") as f:
            f.write(f'data_dir = "{scratch}/data"\nlocale = "{lang}"\n'
                    f'[agent_api]\nlisten = "127.0.0.1:{self.agent_port}"\n'
                    f'[status_api]\nlisten = "127.0.0.1:{self.status_port}"\n'
                    f'public_base = "http://127.0.0.1:{self.status_port}"\nhosts_on_this_machine = true\n'
                    f'{discovery}')
        options = ArgOptions()
        options.set_capability("browserName", "wry")
        options.set_capability("tauri:options",
                               {"application": app or APP, "args": ["--config", self.config, "--open"]})
        self.driver = webdriver.Remote(command_executor=DRIVER, options=options)
        self.driver.set_script_timeout(10)
        new_key(self.driver, shot=self.shot if lang == "en" else None)
        wait_for("the agent API", lambda: os.path.exists(f"{scratch}/data/run/agent-api.json"))
        wait_for("the main window", lambda: self.js("return !!document.querySelector('nav a')"))

    def dump(self):
        """What the webview shows, for a failure's report."""
        try:
            print("e2e: windows", self.driver.window_handles, "url", self.driver.current_url, file=sys.stderr)
            print(self.driver.page_source[:3000], file=sys.stderr)
        except Exception as e:
            print("e2e: no page to dump:", e, file=sys.stderr)

    def close(self):
        try:
            self.driver.quit()
        finally:
            self.host.kill()

    def cli(self, *args):
        out = subprocess.run([CLI, "--config", self.config, *args], capture_output=True, text=True, check=True)
        return out.stdout

    def new_offer(self):
        before = open(f"{self.scratch}/offer.jws").read()
        self.host.stdin.write("offer\n")
        self.host.stdin.flush()
        wait_for("a new offer", lambda: open(f"{self.scratch}/offer.jws").read() not in ("", before))

    def receipt(self, jti):
        """The host books its latest offer under mandate `jti` (§5.3: a
        closed mandate, `consent.approved` "offer") and prints its signed
        receipt: kept in a file for the agent, its claims returned."""
        self.host.stdin.write(f"receipt {jti} offer\n")
        self.host.stdin.flush()
        end = time.time() + 30
        while time.time() < end:
            line = self.host_lines.get(timeout=max(0.1, end - time.time()))
            header = json.loads(b64url(line.split(".")[0]))
            if header.get("typ") == "schcp-receipt+jwt":
                path = f"{self.scratch}/receipt.jws"
                with open(path, "w") as f:
                    f.write(line + "\n")
                return path, json.loads(b64url(line.split(".")[1]))
        raise AssertionError(f"no receipt from the host: {open(f'{self.scratch}/host.err').read()[-2000:]}")

    def agent(self, key_file, receipt=None):
        """The example agent: a closed mandate over the host's latest offer,
        or, with `receipt`, a management mandate over the booking it tells of."""
        ask = ["--receipt-file", receipt] if receipt else ["--offer-file", f"{self.scratch}/offer.jws"]
        return subprocess.Popen(
            [AGENT, "--keyapp", f"http://127.0.0.1:{self.agent_port}", *ask,
             "--key-file", key_file, "--discovery", DISCOVERY],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def route(self, hash_):
        self.js("location.hash = arguments[0]", hash_)

    def text_of(self, element_id):
        return self.js("const e = document.getElementById(arguments[0]); return e ? e.textContent : null", element_id)

    def shown_id(self, wanted):
        """Opens the consent view on `wanted` and waits for its text, as a
        person would: the notice of their last answer stays until dismissed,
        with a new request announced beside it ("Review it")."""
        def shown():
            state = self.js(
                "const m = document.querySelector('main.consent'); const a = document.getElementById('consent-announce');"
                "const t = document.getElementById('consent-text');"
                "return {shown: m && m.dataset.requestId, notice: !!document.getElementById('consent-notice'),"
                " announced: a && a.dataset.requestId, text: t && t.textContent};")
            if state["shown"] == wanted and not state["notice"]:
                return state["text"]
            if state["announced"] == wanted:
                self.driver.find_element(By.ID, "consent-announce-show").click()
            elif state["notice"]:
                self.driver.find_element(By.ID, "next").click()
            elif self.js("return location.hash").endswith(wanted):
                # Routed here already, but another request is on screen: leave and come back.
                self.route("#/requests")
            else:
                self.route(f"#/consent/{wanted}")
            return None
        return wait_for(f"the consent text of {wanted}", shown)

    def approve(self):
        # As a person would: bring the window to the front and click into the
        # text (a new consent window may have taken the focus).
        # Xvfb has no window manager to move the focus on a click: xdotool
        # gives the X focus to the main window, where these scenarios run.
        subprocess.run(["xdotool", "search", "--name", "^SchCP Key App$", "windowfocus", "--sync"], check=True,
                       capture_output=True, timeout=10)
        self.driver.find_element(By.ID, "consent-text").click()
        button = self.driver.find_element(By.ID, "approve")
        wait_for("Approve to be enabled", lambda: button.is_enabled(), timeout=10)
        clicked = button.get_attribute("data-request-id")
        button.click()
        return wait_for("the outcome", lambda: self.outcome(clicked))

    def decline(self):
        # The view may still be swapping in the request just routed to.
        button = wait_for("Decline", lambda: self.driver.find_element(By.ID, "decline"))
        clicked = button.get_attribute("data-request-id")
        button.click()
        return wait_for("the outcome", lambda: self.outcome(clicked))

    def outcome(self, clicked):
        """How `clicked` was answered, as the window's notice says: it stays in
        view until dismissed, whatever arrives meanwhile."""
        return self.js("const n = document.getElementById('consent-notice'); "
                       "return n && n.dataset.requestId === arguments[0] ? n.dataset.outcome : null", clicked)

    def audit(self, screen):
        """axe-core, injected through WebDriver: no serious or critical violation."""
        if not self.js("return typeof window.axe === 'object'"):
            self.js(open(AXE).read())
            # The audit can fail: an unlabelled field is a critical violation.
            self.js("const i = document.createElement('input'); i.id = 'axe-probe'; document.body.appendChild(i);")
            probe = self.violations()
            self.js("document.getElementById('axe-probe').remove()")
            assert any(v["id"] == "label" and v["impact"] == "critical" for v in probe), probe
        result = self.violations()
        bad = [v for v in result if v["impact"] in ("serious", "critical")]
        assert not bad, f"{screen}: {json.dumps(bad, indent=1)}"
        print(f"e2e: axe on {screen}: no serious or critical violation ({len(result)} minor)")
        self.reflow(screen)

    def reflow(self, screen):
        """Usable at 200 % zoom: the window at half its width gives the page the
        CSS viewport 200 % zoom gives it (media queries included), and the page
        must reflow into it with no sideways scrolling (WCAG 1.4.10), so every
        control is reached with the keyboard and seen without scrolling across."""
        measure = "const d = document.documentElement; return {scroll: d.scrollWidth, client: d.clientWidth};"
        size = self.driver.get_window_size()
        self.driver.set_window_size(size["width"] // 2, size["height"])
        try:
            wait_for("the narrower window", lambda: self.js("return window.innerWidth") <= size["width"] // 2)
            if not getattr(self, "reflow_probed", False):
                # The check can fail: content wider than the window is caught.
                self.js("const p = document.createElement('div'); p.id = 'reflow-probe';"
                        "p.style.width = '150vw'; p.style.height = '1px'; document.body.appendChild(p);")
                probe = self.js(measure)
                self.js("document.getElementById('reflow-probe').remove()")
                assert probe["scroll"] > probe["client"] + 1, probe
                self.reflow_probed = True
            r = self.js(measure)
        finally:
            self.driver.set_window_size(size["width"], size["height"])
        assert r["scroll"] <= r["client"] + 1, f"{screen} at 200 % zoom scrolls sideways: {r}"
        print(f"e2e: {screen} reflows at 200 % zoom ({r['client']} px wide)")

    def violations(self):
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map("
            "v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.html).slice(0, 3)}))),"
            " e => done([{id: 'axe-error', impact: 'critical', help: String(e)}]))")

    def shot(self, name):
        shot_to(self.driver, name)

    def labelled(self, within, msg_id):
        """The control inside `within` (a CSS selector) whose label reads
        message `msg_id`: found as a person finds it, by the words beside it."""
        words = message(msg_id, self.lang)
        return wait_for(f"the field {words!r}", lambda: self.js(
            "const root = document.querySelector(arguments[0]); if (!root) return null;"
            "return [...root.querySelectorAll('input, select, textarea')].find(c =>"
            " [...(c.labels || [])].some(l => l.textContent.trim() === arguments[1])) || null;", within, words))

    def choose(self, select, label_contains):
        """Picks the option whose words contain `label_contains` (as a person
        picks it from the list); the value it stands for is the window's."""
        chosen = self.js(
            "const s = arguments[0]; const o = [...s.options].find(o => o.textContent.includes(arguments[1]));"
            "if (!o) return null; s.value = o.value; s.dispatchEvent(new Event('change', {bubbles: true}));"
            "return o.value;", select, label_contains)
        assert chosen is not None, f"no option with {label_contains!r}"
        return chosen

    def search(self, screen, text=None, host=None, agent=None, outcome=None):
        """Fills the search form of `screen` (History, Credentials) and sends it
        with Enter in the words field, as a person would."""
        form = f"#h-{screen} ~ form[role=search], section[aria-labelledby=h-{screen}] form[role=search]"
        wait_for("the search form", lambda: self.driver.find_element(By.CSS_SELECTOR, form))
        outcome_label = "search-answer" if screen == "history" else "search-state"
        for msg_id, value in (("search-host", host), ("search-agent", agent), (outcome_label, outcome)):
            field = self.labelled(form, msg_id)
            if value is None:
                self.js("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('change', {bubbles: true}))",
                        field)
            else:
                self.choose(field, value)
        words = self.labelled(form, "search-text")
        # Emptied as a person does (select all, delete), which the page hears as
        # input; WebDriver's own clear() would not tell it.
        words.send_keys(Keys.CONTROL, "a")
        words.send_keys(Keys.BACKSPACE)
        if text:
            words.send_keys(text)
        words.send_keys(Keys.ENTER)

    def clear_search(self, screen):
        """The search form's Clear: every field emptied, the whole list again."""
        words = message("search-clear", self.lang)
        self.driver.find_element(By.XPATH, f'//section[@aria-labelledby="h-{screen}"]//form[@role="search"]'
                                           f'//button[normalize-space()="{words}"]').click()

    def rows(self, screen):
        """Each row's text outside its Details disclosure, and its credential id."""
        return self.js(
            "const t = document.querySelector('#h-' + arguments[0] + ' ~ table'); if (!t) return [];"
            "return [...t.querySelectorAll('tbody > tr')].map(r => { const c = r.cloneNode(true);"
            " c.querySelectorAll('details').forEach(d => d.remove());"
            " const w = r.querySelector('.sentence');"
            " return {text: c.textContent, jti: r.dataset.jti || null, sentence: w ? w.textContent : null}; });",
            screen)

    def said_empty(self, screen, msg_id):
        return self.js(
            "const s = document.querySelector('section[aria-labelledby=\"h-' + arguments[0] + '\"]');"
            "return !!s && !s.querySelector('table') && [...s.querySelectorAll('p')].some("
            " p => p.textContent.trim() === arguments[1]);", screen, message(msg_id, self.lang))

    def export(self, fmt, path):
        """Writes the records through the export form: the path typed in (a
        picker may stand beside it), the format chosen, Export pressed; returns
        the sentence the window says."""
        section = "section[aria-labelledby=h-export]"
        self.choose(self.labelled(section, "export-format"), message(f"export-format-{fmt}", self.lang))
        field = self.labelled(section, "export-path")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.BACKSPACE)
        field.send_keys(path)
        self.driver.find_element(By.CSS_SELECTOR, f"{section} button[type=submit]").click()
        return wait_for("the export's sentence", lambda: self.js(
            "const p = document.querySelector(arguments[0] + ' [role=status]');"
            "return p && p.textContent.includes(arguments[1]) ? p.textContent : null", section, path))

    def approve_by_keyboard(self):
        """Approve with the keyboard only: the window focused, Tab until Approve
        has the focus, then Enter. The OS's confirmation of the person (polkit)
        still stands in front of the yes."""
        subprocess.run(["xdotool", "search", "--name", "^SchCP Key App$", "windowfocus", "--sync"], check=True,
                       capture_output=True, timeout=10)
        button = self.driver.find_element(By.ID, "approve")
        wait_for("Approve to be enabled", lambda: button.is_enabled(), timeout=10)
        clicked = button.get_attribute("data-request-id")
        for _ in range(40):
            if self.js("return document.activeElement && document.activeElement.id") == "approve":
                break
            ActionChains(self.driver).send_keys(Keys.TAB).perform()
        else:
            raise AssertionError("Tab never reached Approve")
        ActionChains(self.driver).send_keys(Keys.ENTER).perform()
        return wait_for("the outcome", lambda: self.outcome(clicked))


def verified(compact, principal_jwk):
    """The claims of a credential the key app signed, verified with the
    principal's public JWK (jwcrypto)."""
    token = jws.JWS()
    token.deserialize(compact)
    token.verify(jwk.JWK(**principal_jwk))
    return json.loads(token.payload)


def b64url(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def new_key(driver, shot=None):
    """The first run asks before any key exists: a new key, or one restored
    from the recovery kit. These scenarios make a new one."""
    button = wait_for("the first run's question", lambda: driver.find_element(By.ID, "welcome-new"))
    if shot:
        shot("first-run-welcome.png")
    button.click()


def read_until(proc, prefix, timeout=60):
    end = time.time() + timeout
    lines = []
    while time.time() < end:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"agent ended before {prefix!r}: {''.join(lines)} {proc.stderr.read()}")
        lines.append(line)
        if line.startswith(prefix):
            return line, lines
    raise AssertionError(f"no {prefix!r} from the agent")


def english(scratch):
    env = Env(scratch, "en")
    try:
        # 1. Pairing: the code on screen is the agent's.
        agent = env.agent(f"{scratch}/agent.key")
        line, _ = read_until(agent, "Pairing ")
        pairing_id = line.split()[1].rstrip(":")
        code = line.split("compare the code ")[1].split()[0]
        env.shown_id(pairing_id)
        assert env.text_of("fingerprint") == code, (env.text_of("fingerprint"), code)
        assert env.approve() == "approved"

        # 2. The closed mandate: the text on screen is the service's, byte for byte.
        line, _ = read_until(agent, "  schcp-keyapp approve rq_")
        request_id = line.split()[-1]
        shown = env.shown_id(request_id)
        service_text = env.cli("show", request_id)[:-1]  # println's newline
        assert shown == service_text, f"on screen:\n{shown!r}\nservice:\n{service_text!r}"
        env.shot("consent-window.png")
        env.audit("consent")
        assert env.approve() == "approved"
        mandate = agent.stdout.read().strip().splitlines()[-1]
        assert agent.wait(30) == 0
        principal_jwk = json.loads(env.cli("principal").splitlines()[1])
        claims = verified(mandate, principal_jwk)
        jti = claims["jti"]
        print(f"e2e: mandate {jti} verifies with the principal's key")

        # 2b. The booking, end to end: the host confirms the offer under that
        # mandate and signs its receipt (§5.3); the agent hands the receipt in
        # as a management mandate (§3.3), which the person approves in the
        # window (the receipt cites no root mandate); My bookings lists it.
        receipt_file, receipt = env.receipt(jti)
        booking = receipt["booking"]
        agent = env.agent(f"{scratch}/agent.key", receipt=receipt_file)
        line, _ = read_until(agent, "  schcp-keyapp approve rq_")
        manage_text = env.shown_id(line.split()[-1])
        assert "Maple Street Auto" in manage_text, manage_text
        assert env.approve() == "approved"
        manager = agent.stdout.read().strip().splitlines()[-1]
        assert agent.wait(30) == 0
        manager_claims = verified(manager, principal_jwk)
        manager_jti = manager_claims["jti"]
        assert manager_claims["constraints"]["bookings"] == [booking["booking_id"]], manager_claims
        env.route("#/bookings")
        row = wait_for("the booking in My bookings", lambda: env.driver.find_element(
            By.CSS_SELECTOR, f'tr[data-booking="{booking["booking_id"]}"]'))
        shown = env.js("const c = arguments[0].cloneNode(true); c.querySelectorAll('details').forEach(d => d.remove());"
                       "return {text: c.textContent, cells: [...c.children].map(td => td.textContent)};", row)
        # In the booking's own zone, as the consent text gave the offer's: the
        # person finds the words they agreed to, under "Rests on".
        zone = zoneinfo.ZoneInfo(booking["event"]["timeZone"])
        start = datetime.datetime.fromisoformat(booking["start"]).astimezone(zone)
        at = f"{(start.hour - 1) % 12 + 1}:{start.minute:02d}"
        assert shown["cells"][1] in shown["cells"][0], shown
        price = (booking.get("total") or booking["price"])["amount"]
        assert "Maple Street Auto" in shown["cells"][2], shown
        assert at in shown["cells"][1] and str(start.day) in shown["cells"][1], (at, shown)
        assert price in shown["text"], (price, shown)
        assert row.get_attribute("data-upcoming") == "yes", shown
        for raw in (booking["booking_id"], manager_jti, jti, "maple-street-auto", "rq_"):
            assert raw not in shown["text"], (raw, shown)
        assert env.driver.find_element(By.CSS_SELECTOR, f'p[data-manager="{manager_jti}"][data-status="active"]')
        print(f"e2e: booked {booking['booking_id']}; My bookings lists it at {at} for {price} at Maple Street Auto")

        # 3. A decline: a new offer, the same (paired) agent.
        env.new_offer()
        agent = env.agent(f"{scratch}/agent.key")
        line, _ = read_until(agent, "  schcp-keyapp approve rq_")
        env.shown_id(line.split()[-1])
        assert env.decline() == "declined"
        assert agent.wait(30) != 0
        assert "declined" in agent.stderr.read()

        # 4. Revoke from Credentials: the service records it at once, and the
        # status URL the mandate names (§3.3 check 7) says so to hosts.
        def mandate_status():
            rows = [l.split("\t") for l in env.cli("mandates").splitlines()]
            return next(r for r in rows if r[0] == jti)
        def hosts_see():
            assert claims["status"] == f"http://127.0.0.1:{env.status_port}/status/{jti}", claims
            with urllib.request.urlopen(claims["status"], timeout=5) as r:
                return json.load(r)["status"]
        assert "active" in mandate_status(), mandate_status()
        assert hosts_see() == "active"
        env.route("#/credentials")
        row = wait_for("the mandate's row", lambda: env.driver.find_element(By.CSS_SELECTOR, f'tr[data-jti="{jti}"]'))
        row.find_element(By.TAG_NAME, "button").click()
        row.find_element(By.CSS_SELECTOR, 'button[data-confirm="yes"]').click()
        wait_for("the row to say revoked", lambda: env.driver.find_element(
            By.CSS_SELECTOR, f'tr[data-jti="{jti}"] td[data-status="revoked"]'))
        assert "revoked" in mandate_status(), mandate_status()
        assert hosts_see() == "revoked", "GET /status/{jti} flipped at once"
        # The records in the person's words: the host's name, and no raw id
        # outside the Details disclosures.
        def outside_details(selector):
            return env.js("const t = document.querySelector(arguments[0]); if (!t) return null; "
                          "const c = t.cloneNode(true); c.querySelectorAll('details').forEach(d => d.remove()); "
                          "return c.textContent;", selector)
        credentials_text = outside_details("#h-credentials ~ table")
        assert "Maple Street Auto" in credentials_text, credentials_text
        assert jti not in credentials_text and "maple-street-auto" not in credentials_text, credentials_text
        env.shot("credentials.png")
        env.route("#/history")
        wait_for("the history", lambda: env.driver.find_element(By.CSS_SELECTOR, "#h-history ~ table"))
        history_text = outside_details("#h-history ~ table")
        assert "You declined: " in history_text and "Maple Street Auto" in history_text, history_text
        assert "rq_" not in history_text and jti not in history_text and "request_" not in history_text, history_text
        env.shot("history.png")

        # 5. Approve by keyboard alone: a new request, Tab to Approve, Enter;
        # the credential is issued (the OS confirmed the person, as for a click).
        env.new_offer()
        agent = env.agent(f"{scratch}/agent.key")
        line, _ = read_until(agent, "  schcp-keyapp approve rq_")
        env.shown_id(line.split()[-1])
        assert env.approve_by_keyboard() == "approved"
        mandate = agent.stdout.read().strip().splitlines()[-1]
        assert agent.wait(30) == 0
        jti2 = verified(mandate, principal_jwk)["jti"]
        env.route("#/credentials")
        wait_for("the keyboard's credential, active", lambda: env.driver.find_element(
            By.CSS_SELECTOR, f'tr[data-jti="{jti2}"] td[data-status="active"]'))
        print(f"e2e: Approve by keyboard (Tab, Enter) issued {jti2}")

        # 6. Searching Credentials and History narrows the list to the rows
        # that match, in the service; a search nothing matches says so.
        def listed(screen, check, what):
            return wait_for(what, lambda: check(env.rows(screen)) and env.rows(screen))
        both = listed("credentials", lambda r: {x["jti"] for x in r} == {jti, jti2, manager_jti}, "every credential")
        env.search("credentials", outcome=message("status-active"))
        listed("credentials", lambda r: {x["jti"] for x in r} == {jti2, manager_jti}, "only the active credentials")
        env.search("credentials", outcome=message("status-revoked"))
        listed("credentials", lambda r: [x["jti"] for x in r] == [jti], "only the revoked credential")
        env.search("credentials", host="Maple Street Auto", agent="Example Agent", text="oil change")
        listed("credentials", lambda r: {jti, jti2} <= {x["jti"] for x in r}, "both, by host, assistant and words")
        env.search("credentials", text="no such words anywhere")
        wait_for("the credentials' empty search", lambda: env.said_empty("credentials", "search-none"))
        env.audit("credentials-search")
        assert len(both) == 3

        env.route("#/history")
        everything = listed("history", lambda r: len(r) >= 4, "the whole history")
        env.search("history", outcome=message("search-answer-declined"))
        declined = listed("history", lambda r: len(r) == 1, "the one declined entry")
        assert declined[0]["sentence"].startswith("You declined: "), declined
        # Each wait names the list it expects, not only its size: until the
        # window has the new answer, the rows on screen are the last search's.
        env.search("history", host="Maple Street Auto")
        at_host = listed("history", lambda r: 1 < len(r) < len(everything)
                         and all("Maple Street Auto" in x["text"] for x in r), "the entries at the host")
        env.search("history", text="oil change")
        about = listed("history", lambda r: 0 < len(r) < len(everything)
                       and all("oil change" in x["text"] for x in r), "the entries about an oil change")
        env.search("history", agent="Example Agent", outcome=message("search-answer-approved"))
        not_approved = ("You declined", "You withdrew")
        approved = listed("history", lambda r: 0 < len(r) < len(everything)
                          and not any((x["sentence"] or "").startswith(not_approved) for x in r),
                          "the entries the person approved")
        assert not any(x["sentence"].startswith("You declined") for x in approved), approved
        env.search("history", outcome=message("search-answer-declined"))
        listed("history", lambda r: len(r) == 1, "the declined entry again")
        env.shot("history-search.png")
        env.search("history", text="no such words anywhere")
        wait_for("the history's empty search", lambda: env.said_empty("history", "search-none"))
        env.audit("history-search")
        print(f"e2e: searches narrowed History ({len(everything)} entries) and Credentials to the matching rows")

        # 7. Export: the JSON parses, follows its schema and holds the records
        # the window shows; the printable page names the host.
        env.clear_search("history")
        shown = listed("history", lambda r: len(r) == len(everything), "the whole history again")
        records = f"{scratch}/records.json"
        env.export("json", records)
        with open(records) as f:
            exported = json.load(f)
        with open(EXPORT_SCHEMA) as f:
            jsonschema.validate(exported, json.load(f))
        assert exported["format"] == "schcp-keyapp-records/1", exported["format"]
        assert {c["jti"] for c in exported["credentials"]} == {jti, jti2, manager_jti}, exported["credentials"]
        sentences = [h["sentence"] for h in exported["history"]]
        assert all(x["sentence"] in sentences for x in shown), (shown, sentences)
        page = f"{scratch}/records.html"
        env.export("html", page)
        with open(page) as f:
            html = f.read()
        assert "Maple Street Auto" in html and "<html" in html.lower(), html[:500]
        env.js("document.querySelector('section[aria-labelledby=h-export]').scrollIntoView()")
        env.shot("export.png")
        env.audit("history-export")
        print(f"e2e: export wrote JSON ({len(sentences)} history entries, schema-valid) and a printable page")

        for screen in ("requests", "bookings", "agents", "credentials", "history", "contacts", "attestations",
                       "settings"):
            env.route(f"#/{screen}")
            wait_for(f"the {screen} screen", lambda: env.driver.find_element(By.ID, f"h-{screen}"))
            time.sleep(0.3)
            if screen == "settings":
                wait_for("the principal id", lambda: env.driver.find_element(By.ID, "principal"))
            if screen in ("bookings", "settings"):
                env.shot(f"{screen}.png")
            env.audit(screen)

        # 8. The first run's explanation, again from Settings: each step shown,
        # audited, and left with its own buttons.
        env.driver.find_element(By.ID, "show-intro").click()
        for step in ("about", "key", "status", "kit"):
            wait_for(f"the intro's {step} step", lambda: env.driver.find_element(
                By.CSS_SELECTOR, f'#first-run[data-step="{step}"]'))
            # The steps sit above the screen, which Settings' button had scrolled
            # away from: the steps brought into view, the page itself back at its top.
            env.js("document.getElementById('first-run').scrollIntoView(); window.scrollTo(0, 0)")
            env.shot(f"first-run-{step}.png")
            env.audit(f"first-run-{step}")
            if step == "status":
                skip = message("first-run-skip")
                env.driver.find_element(By.XPATH, f'//*[@id="first-run-status"]//button[normalize-space()="{skip}"]').click()
            else:
                env.driver.find_element(By.ID, "first-run-next").click()
        wait_for("the intro to close", lambda: not env.driver.find_elements(By.ID, "first-run"))

        # 9. The recovery kit after the OS confirmed the person (polkit), its
        # two words typed back, and a backup that is an age file, not records.
        env.route("#/settings")
        wait_for("the kit's button", lambda: env.driver.find_element(By.ID, "kit-show")).click()
        words = wait_for("the kit's words", lambda: env.driver.find_elements(By.CSS_SELECTOR, "#kit-words li") or None)
        env.shot("recovery-kit.png")
        words = [w.text for w in words]
        assert len(words) == 24, words
        assert env.text_of("kit-principal") == env.cli("principal").splitlines()[0]
        for i, label in enumerate(env.driver.find_elements(By.CSS_SELECTOR, "#kit-confirm label")):
            n = int(label.text.split()[-1])
            env.driver.find_element(By.ID, f"kit-word-{i}").send_keys(words[n - 1])
        env.driver.find_element(By.ID, "kit-check").click()
        wait_for("the words confirmed", lambda: env.driver.find_element(By.ID, "kit-confirmed"))
        env.driver.find_element(By.ID, "kit-hide").click()
        backup = f"{env.scratch}/records.age"
        env.driver.find_element(By.ID, "backup-file").send_keys(backup)
        env.driver.find_element(By.ID, "backup-now").click()
        wait_for("the backup's sentence", lambda: env.driver.find_element(By.ID, "backup-written"))
        with open(backup, "rb") as f:
            head = f.read(64)
        assert head.startswith(b"age-encryption.org/v1"), head
        env.audit("settings-recovery")

        # 10. The window's language switches at run time.
        env.route("#/settings")
        wait_for("the settings", lambda: env.driver.find_element(By.ID, "language"))
        env.js("const s = document.getElementById('language'); s.value = 'fr'; s.dispatchEvent(new Event('change'));")
        wait_for("French headings", lambda: env.text_of("h-settings") == "Réglages")
    except BaseException:
        env.dump()
        raise
    finally:
        env.close()


def french(scratch):
    env = Env(scratch, "fr")
    try:
        agent = env.agent(f"{scratch}/agent.key")
        line, _ = read_until(agent, "Pairing ")
        pairing_id = line.split()[1].rstrip(":")
        shown = env.shown_id(pairing_id)
        assert shown == env.cli("show", pairing_id)[:-1]
        assert shown.startswith("Jumeler"), shown
        assert env.text_of("consent-heading") == "Un assistant demande à être associé à votre appli de clés"
        env.shot("consent-window-fr.png")
        agent.kill()
    except BaseException:
        env.dump()
        raise
    finally:
        env.close()


def session(application, args):
    options = ArgOptions()
    options.set_capability("browserName", "wry")
    options.set_capability("tauri:options", {"application": application, "args": args})
    return webdriver.Remote(command_executor=DRIVER, options=options)


def listening(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def no_keychain(scratch):
    """Where no keychain answers: the passphrase is asked in the window.

    The app runs with a session bus address that leads nowhere (so no OS
    keychain, no tray) and no SCHCP_KEYAPP_PASSPHRASE. A first run sets the
    passphrase, typed twice (a mismatch is said and asked again); a later run
    unlocks the same key (a wrong passphrase is said and asked again). Until
    the key opens, nothing of the service runs: no agent API, no control socket.
    """
    wrapper = f"{scratch}/no-keychain-app"
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec env -u SCHCP_KEYAPP_PASSPHRASE "
                f"DBUS_SESSION_BUS_ADDRESS=unix:path={scratch}/no-bus {APP} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    agent_port, status_port = free_port(), free_port()
    config = f"{scratch}/keyapp.toml"
    with open(config, "w") as f:
        f.write(f'data_dir = "{scratch}/data"\nlocale = "en"\n[agent_api]\nlisten = "127.0.0.1:{agent_port}"\n'
                f'[status_api]\nlisten = "127.0.0.1:{status_port}"\n')
    key_file = f"{scratch}/data/principal.key.age"

    def cli(*args):
        return subprocess.run([CLI, "--config", config, *args], capture_output=True, text=True, check=True).stdout

    def problem(driver, wanted):
        return wait_for(f"the {wanted} notice", lambda: driver.find_element(
            By.CSS_SELECTOR, f'#unlock-problem[data-problem="{wanted}"]'))

    def submit(driver, passphrase, confirmation=None):
        field = wait_for("the passphrase field", lambda: driver.find_element(By.ID, "passphrase"))
        field.clear()
        field.send_keys(passphrase)
        if confirmation is not None:
            again = driver.find_element(By.ID, "confirmation")
            again.clear()
            again.send_keys(confirmation)
        driver.find_element(By.ID, "unlock-submit").click()

    driver = session(wrapper, ["--config", config, "--open"])
    try:
        # The first run: a restore with a mistyped phrase is refused in words,
        # and nothing is written; then a new key.
        wait_for("the first run's question", lambda: driver.find_element(By.ID, "welcome-restore")).click()
        driver.find_element(By.ID, "restore-words").send_keys("abandon " * 23 + "abandon")
        driver.find_element(By.ID, "restore-submit").click()
        refused = wait_for("the restore's refusal", lambda: driver.find_element(By.ID, "restore-problem"))
        assert refused.text.startswith("Those words are not a recovery phrase"), refused.text
        shot_to(driver, "restore.png")
        assert not os.path.exists(f"{scratch}/data/keyapp.db") and not os.path.exists(key_file)
        driver.find_element(By.ID, "restore-new").click()
        wait_for("the first-run passphrase window", lambda: driver.find_element(By.ID, "confirmation"))
        assert driver.find_element(By.ID, "passphrase").get_attribute("type") == "password"
        assert not os.path.exists(key_file) and not listening(agent_port), "nothing runs before the key opens"
        assert not os.path.exists(f"{scratch}/data/run/control.sock")
        submit(driver, "correct horse", "correct hose")
        problem(driver, "mismatch")
        assert not os.path.exists(key_file), "no key before both fields agree"
        submit(driver, "correct horse battery", "correct horse battery")
        wait_for("the main window after unlocking", lambda: driver.find_element(By.ID, "h-requests"))
        # No session bus, so no tray: the main window stays and says why.
        assert driver.find_element(By.ID, "no-tray")
        assert listening(agent_port) and os.path.getsize(key_file) > 0
        principal = cli("principal").splitlines()[0]
        print(f"e2e: the first run set the passphrase and made {principal} in the file keystore")
    except BaseException:
        print(driver.page_source[:3000], file=sys.stderr)
        raise
    finally:
        driver.quit()
    wait_for("the first run to end", lambda: not listening(agent_port))

    driver = session(wrapper, ["--config", config, "--open"])
    try:
        wait_for("the unlock window", lambda: driver.find_element(By.ID, "passphrase"))
        assert not driver.find_elements(By.ID, "confirmation"), "unlocking asks once"
        assert not listening(agent_port)
        submit(driver, "not the passphrase")
        problem(driver, "wrong")
        assert not listening(agent_port), "a wrong passphrase starts nothing"
        submit(driver, "correct horse battery")
        wait_for("the main window after unlocking", lambda: driver.find_element(By.ID, "h-requests"))
        assert cli("principal").splitlines()[0] == principal, "the same key, unlocked"
        print("e2e: a later run said the wrong passphrase, then unlocked the same key")
    except BaseException:
        print(driver.page_source[:3000], file=sys.stderr)
        raise
    finally:
        driver.quit()


def descendants(pid):
    """Every process under `pid` (WebKit's may sit under a sandbox helper): (pid, comm)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            parents[int(entry)] = (int(stat[stat.rindex(")") + 2:].split()[1]), comm)
    found, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        for child, (ppid, comm) in parents.items():
            if ppid == p:
                found.append((child, comm))
                frontier.append(child)
    return found


def web_processes(pid):
    return [c for c in descendants(pid) if c[1].startswith("WebKitWebProc")]


WEB_EXTENSION = "/usr/lib/schcp-keyapp/webext/libschcp_webext.so"


def assert_web_processes_hardened(pid):
    """Every web process of the app's windows has loaded the extension that
    makes it non-dumpable (crates/webext, whose own tests show what its entry
    point does; WebKit calls it in each module it loads from the directory):
    it is mapped into each. A reader without CAP_SYS_PTRACE is refused the
    maps of a non-dumpable process; that refusal is the property itself."""
    def hardened(web):
        try:
            with open(f"/proc/{web}/maps") as f:
                return WEB_EXTENSION in f.read()
        except PermissionError:
            return True

    # A process just started maps it within moments of its start, before any page.
    wait_for(f"{WEB_EXTENSION} in every web process",
             lambda: web_processes(pid) and all(hardened(web) for web, _ in web_processes(pid)), timeout=10)


def tray(scratch):
    """Idle in the tray: after the last window closes the app is a tray icon and
    no WebKit web process; a new pairing opens the consent window again."""
    items = f"{scratch}/tray-items"
    host = subprocess.Popen([sys.executable, os.path.join(ROOT, "src-tauri", "e2e", "tray_host.py"), items],
                            stdout=subprocess.PIPE, text=True)
    assert host.stdout.readline().strip() == "tray host: ready"
    env = Env(scratch, "en")
    try:
        wait_for("the tray icon to register", lambda: os.path.exists(items) and open(items).read().strip())
        pid = json.load(open(f"{scratch}/data/keyapp.lock"))["pid"]
        assert web_processes(pid), f"a window is open, so WebKit runs: {descendants(pid)}"
        assert_web_processes_hardened(pid)
        assert not env.driver.find_elements(By.ID, "no-tray"), "a tray was found, so no no-tray notice"
        closed = time.time()
        try:
            env.driver.set_script_timeout(2)
            env.driver.execute_async_script(
                "window.__TAURI_INTERNALS__.invoke('close_window'); setTimeout(arguments[arguments.length - 1], 50)")
        except Exception:  # the page goes with its window
            pass
        wait_for("no WebKit web process", lambda: not web_processes(pid), timeout=30, every=0.05)
        idle = time.time() - closed
        os.kill(pid, 0)  # still running, in the tray
        print(f"e2e: idle in the tray {idle:.2f} s after the last window closed: {descendants(pid)}")
        agent = env.agent(f"{scratch}/agent.key")
        read_until(agent, "Pairing ")
        wait_for("the consent window", lambda: subprocess.run(
            ["xdotool", "search", "--name", "^Your consent"], capture_output=True).returncode == 0)
        wait_for("the consent window's WebKit", lambda: web_processes(pid))
        assert_web_processes_hardened(pid)
        print("e2e: a new pairing opened the consent window from the tray")
        agent.kill()
    finally:
        try:
            env.close()
        finally:
            host.kill()


def main():
    wait_for("tauri-driver", lambda: urllib.request.urlopen(f"{DRIVER}/status", timeout=2).status == 200, timeout=30)
    # E2E_ONLY=name[,name] runs some scenarios (while working on one); CI runs all.
    only = [n for n in os.environ.get("E2E_ONLY", "").split(",") if n]
    for name, scenario in (("no_keychain", no_keychain), ("english", english), ("french", french), ("tray", tray)):
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory() as scratch:
            scenario(scratch)
    print("e2e: all scenarios passed")


if __name__ == "__main__":
    sys.exit(main())
